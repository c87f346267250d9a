"""The build lock: one holder at a time, and no lock file left behind."""
import threading
import time

from patterndb.locks import exclusive


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
