"""The build lock: one holder at a time, and no lock file left behind."""

import threading
import time

from patterndb.files.locks import exclusive


def test_one_holder_at_a_time_and_no_file_left(tmp_path):
    lock = tmp_path / ".t.h5.lock"
    inside, most, waited = [0], [0], []
    guard = threading.Lock()

    def build():
        with exclusive(lock, lambda: waited.append(1)):
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.02)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=build) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and waited
    assert not lock.exists()


def test_a_build_that_only_waited_says_it_found_the_table_built(tmp_path, capsys):
    """A second `pdb build` of the same table waits, then says it found the table built."""
    from patterndb.files.buildcheck import build_lock

    path = tmp_path / "t.h5"
    holding, done = threading.Event(), []

    def first():
        with build_lock(path, False):
            holding.set()
            time.sleep(0.3)
            path.write_bytes(b"built")

    t = threading.Thread(target=first)
    t.start()
    holding.wait()
    with build_lock(path, True) as built:
        done.append(built)
    t.join()
    err = capsys.readouterr().err
    assert done == [True] and "waiting for another build of t.h5" in err
    assert "another build wrote t.h5 meanwhile: using it" in err
