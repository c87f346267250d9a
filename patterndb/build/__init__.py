"""The builders: breadth-first searches from the goal for exact tables, additive,
zero-aware and blank-free pattern databases and move-pruning machines, and the proofs
that a table is right."""
