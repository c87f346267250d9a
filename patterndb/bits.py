"""Bit-twiddling primitives for numba kernels (single LLVM instructions).

Ranking partial permutations needs "how many used cells lie below cell p",
which is a popcount on a mask; flood fills need the lowest set bit.
"""

import numpy as np

from .jit import intrinsic, njit, types


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return x(x), codegen


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the CPU to start loading arr[idx] into the cache (llvm.prefetch: read, keep);
    arr: a 1-d array of any dtype."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        from llvmlite import ir
        from numba.core import cgutils

        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [args[1]])
        # (the intrinsic is declared once per module)
        ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32]),
            "llvm.prefetch.p0",
        )
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a uint64."""
    return _ctpop(types.uint64(x))


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero uint64."""
    return _cttz(types.uint64(x))


@njit(cache=True, inline="always")
def nth_bit(mask, d):
    """Index of the d-th lowest set bit of mask (d = 0: the lowest)."""
    for _ in range(d):
        mask &= mask - np.uint64(1)
    return lowest_bit(mask)


@njit(cache=True, inline="always")
def ordinal(cell, mask):
    """How many cells of mask lie below cell."""
    return popcount(mask & ((np.uint64(1) << np.uint64(cell)) - np.uint64(1)))


@njit(cache=True, inline="always")
def flood(seed, free, geo):
    """Cells connected to seed through free cells, all directions at once on
    bitmasks. geo = (cols, cells not in the first column, cells not in the
    last column, all cells), as uint64 (an array or a tuple)."""
    return spread(np.uint64(1) << np.uint64(seed), free, geo)


@njit(cache=True, inline="always")
def spread(x, free, geo):
    """x and the free cells connected to it. One step a pass, as flood: a seed that
    already holds most of a region is done in a few passes."""
    cols = geo[0]
    not_first = geo[1]
    not_last = geo[2]
    x = np.uint64(x)
    while True:
        y = (
            x
            | ((x & not_last) << np.uint64(1))
            | ((x & not_first) >> np.uint64(1))
            | (x << cols)
            | (x >> cols)
        ) & free
        y |= x
        if y == x:
            return x
        x = y


@intrinsic
def address(typingctx, arr):
    """The address of arr's data, as an int64: code that reads through it (load_u8) holds
    no reference to arr, so numba adds no reference counting around it (an array read
    in a rarely taken branch of a search kernel cost every node 1.6x otherwise). The
    caller keeps arr alive."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, context.get_value_type(types.int64))

    return types.int64(arr), codegen


@intrinsic
def load_u8(typingctx, addr):
    """The byte at address addr (from address()), as an int64."""
    if not isinstance(addr, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        ptr = builder.inttoptr(args[0], ir.IntType(8).as_pointer())
        return builder.zext(builder.load(ptr), ir.IntType(64))

    return types.int64(addr), codegen


@intrinsic
def load_u64(typingctx, addr):
    """The 8 bytes at address addr (from address()), unaligned, little-endian, as a uint64."""
    if not isinstance(addr, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        load = builder.load(ptr)
        load.align = 1
        return load

    return types.uint64(addr), codegen


@intrinsic
def fetch_add(typingctx, arr, idx, val):
    """arr[idx] += val as one atomic instruction, returning the value before (threads that
    share a counter lose no update); arr: a 1-d int64 array."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 1
        and arr.dtype == types.int64
        and isinstance(idx, types.Integer)
        and isinstance(val, types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        from numba.core import cgutils

        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [args[1]])
        add = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", ptr, add, "seq_cst")

    return types.int64(arr, idx, val), codegen
