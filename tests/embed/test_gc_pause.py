"""The GC pause is shared safely: overlapping pauses in threads leave the collector as it was."""

from __future__ import annotations

import gc
import threading

from refscore.parsing.gc_pause import gc_paused
from refscore.scoring.codebleu import score_codebleu


def test_overlapping_pauses_restore_the_collector() -> None:
    assert gc.isenabled()
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        for index in range(30):
            score_codebleu(["x = 1\nfor i in range(3):\n    x += i\n"], f"y = {index}\n", "python")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert gc.isenabled()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
