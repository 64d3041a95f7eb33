"""calc_codebleu(..., workers=N): a corpus scored over several processes gives the same numbers."""

from __future__ import annotations

import gzip
import json

import pytest
from refscore.compat import calc_codebleu
from refscore.eval.data import default_data_dir

DATA = default_data_dir() / "humaneval" / "java.jsonl.gz"


def _pairs(count: int) -> tuple[list[str], list[str]]:
    if not DATA.exists():
        pytest.skip(f"evaluation data not found at {DATA}")
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(count), handle)]
    return [r["ref"] for r in rows], [r["hyp"] for r in rows]


def _same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-12), key


def test_two_workers_equal_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from refscore.scoring import corpus

    pools = []
    real = corpus.ProcessPoolExecutor

    def counted(*args, **kwargs):
        pools.append(kwargs.get("max_workers"))
        return real(*args, **kwargs)

    monkeypatch.setattr(corpus, "ProcessPoolExecutor", counted)
    monkeypatch.setattr(corpus.os, "cpu_count", lambda: 2)  # whatever the machine has
    refs, hyps = _pairs(240)
    _same(calc_codebleu(refs, hyps, "java", workers=2), calc_codebleu(refs, hyps, "java"))
    assert pools == [2]  # the corpus really went to two processes


def test_an_unpicklable_tokenizer_scores_in_this_process() -> None:
    refs, hyps = _pairs(240)
    tokenizer = lambda text: text.split()  # noqa: E731 - the point: a lambda cannot be pickled
    _same(calc_codebleu(refs, hyps, "java", tokenizer=tokenizer, workers=2),
          calc_codebleu(refs, hyps, "java", tokenizer=tokenizer))


def test_small_corpora_and_bad_counts() -> None:
    refs = ["int f(int a) { return a + 1; }"]
    hyps = ["int f(int b) { return b + 1; }"]
    _same(calc_codebleu(refs, hyps, "java", workers=4), calc_codebleu(refs, hyps, "java"))
    with pytest.raises(ValueError, match="workers"):
        calc_codebleu(refs, hyps, "java", workers=0)


@pytest.mark.parametrize("workers", ["2", None, 2.5, True, 0, -1])
def test_workers_that_are_no_process_count_are_one_clear_error(workers) -> None:
    """``workers="2"`` and ``None`` were ``TypeError: '<' not supported ...``; ``2.5`` and ``True``
    were taken silently."""
    from refscore.errors import ScoreInputError

    with pytest.raises(ScoreInputError, match=r"workers .*: a number of processes, 1 or more"):
        calc_codebleu(["x = 1"], ["x = 2"], "python", workers=workers)


def test_spawned_workers_when_threads_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """With other threads alive, forking is unsafe: the workers are spawned, with the same result."""
    import threading

    from refscore.scoring import corpus

    monkeypatch.setattr(corpus.os, "cpu_count", lambda: 2)
    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait, daemon=True)
    waiter.start()
    try:
        assert corpus._context().get_start_method() == "spawn"
        refs, hyps = _pairs(200)
        _same(calc_codebleu(refs, hyps, "java", workers=2), calc_codebleu(refs, hyps, "java"))
    finally:
        stop.set()
        waiter.join()
