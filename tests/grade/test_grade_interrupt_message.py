"""Ctrl-C before the grader can say how far it got: the last line still says whether a rerun
finishes the run (a cache keeps the scored parts) or starts it again (``--no-cache``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from refscore.grade import run


@pytest.mark.parametrize("no_cache, expected", [
    (True, "refscore: interrupted; nothing was kept without a cache: a rerun scores everything again"),
    (False, "refscore: interrupted; rerun the same command to finish"),
])
def test_interrupt_outside_scoring_names_what_a_rerun_does(monkeypatch, capsys, no_cache, expected) -> None:
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "execute", interrupted)
    job = SimpleNamespace(cache=SimpleNamespace(off=no_cache), report_paths={})
    assert run.run_job(job) == run.EXIT_INTERRUPTED
    assert capsys.readouterr().err.strip() == expected
