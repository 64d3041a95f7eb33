"""The evaluation's scores file as a cache: keys per text, units per setting, checkpoints, an
interrupted run that continues, and other scores files merged in."""

from __future__ import annotations

import pytest

from refscore.eval import execute as execute_module
from refscore.eval.data import Item
from refscore.eval.execute import execute, plan
from refscore.eval.runner import EvalConfig, columns_for
from refscore.eval.store import ScoreStore, item_key

pytest.importorskip("sacrebleu")


def _items(problems: int = 6, per: int = 5) -> list[Item]:
    return [Item("python", p, f"x = {p} + {k}\n", (f"x = {p}\n",), f"intent {p}", float(k % 2))
            for p in range(problems) for k in range(per)]


def _config(**kw) -> EvalConfig:
    return EvalConfig(data_dir="unused", datasets=["python"], metrics=["chrf"], **kw)


def test_item_key_depends_on_the_texts_only():
    a = Item("python", 1, "x", ("y",), "ctx", 1.0)
    assert item_key(a) == item_key(Item("python", 9, "x", ("y",), "ctx", 0.0))
    assert item_key(a) != item_key(Item("python", 1, "x", ("y",), "other", 1.0))
    assert item_key(a) != item_key(Item("java", 1, "x", ("y",), "ctx", 1.0))
    assert item_key(a) != item_key(Item("python", 1, "x", ("y", "z"), "ctx", 1.0))


def test_store_round_trip_and_merge(tmp_path):
    path = tmp_path / "s.npz"
    store = ScoreStore(path)
    store.put("u:a", ("p", "q"), ["k1", "k2"], {"p": [0.5, 0.25], "q": [1.0, float("nan")]})
    store.seconds["python/chrf"] = 3.0
    store.save({"settings": {}})
    again = ScoreStore(path)
    assert again.column("u:a", "p", ["k2", "k1"]).tolist() == [0.25, 0.5]
    assert again.seconds == {"python/chrf": 3.0}
    assert again.missing("u:a", ("p", "q"), ["k1", "k3"]) == ["k3"]
    other = ScoreStore(tmp_path / "o.npz")
    other.put("u:a", ("p", "q"), ["k3"], {"p": [0.1], "q": [0.2]})
    other.put("u:b", ("r",), ["k1"], {"r": [7.0]})
    other.save({})
    assert again.merge_from(tmp_path / "o.npz") == 2
    assert again.column("u:a", "q", ["k3"]).tolist() == [0.2] and again.rows() == 4


def test_an_interrupted_run_continues_with_the_same_numbers(tmp_path, monkeypatch):
    items = _items()
    config = _config()
    path = tmp_path / "scores.npz"
    from refscore.eval import tasks

    monkeypatch.setitem(tasks.CHUNK, "chrf", 5)  # one task per problem

    calls = {"n": 0}
    real = execute_module.run_task

    def flaky(task, cfg):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(task, cfg)

    store = ScoreStore(path)
    work = plan(config, {"python": items}, store)
    assert len(work.tasks) == 6
    monkeypatch.setattr(execute_module, "run_task", flaky)
    with pytest.raises(KeyboardInterrupt):
        execute(work, config, store, checkpoint_s=1e9, meta=lambda: {})
    resumed = ScoreStore(path)  # what the interrupted run left on disk
    assert resumed.rows() == 20  # two finished tasks of five items, each in the chrF and chrF++ units
    work = plan(config, {"python": items}, resumed)
    assert len(work.tasks) == 4 and work.cached["python/chrf"] == 10
    monkeypatch.setattr(execute_module, "run_task", real)
    execute(work, config, resumed, checkpoint_s=1e9, meta=lambda: {})
    fresh = ScoreStore(None)
    execute(plan(config, {"python": items}, fresh), config, fresh, checkpoint_s=1e9, meta=lambda: {})
    got = columns_for(config, items, resumed, work.params["python"])["chrf"]
    want = columns_for(config, items, fresh, {})["chrf"]
    assert got.tolist() == want.tolist()


def test_duplicate_texts_are_scored_once(tmp_path):
    items = _items(problems=2, per=2) * 3
    store = ScoreStore(None)
    work = plan(_config(), {"python": items}, store)
    assert sum(len(t.items) for t in work.tasks) == 4


def test_worker_processes_give_the_same_numbers(tmp_path):
    items = _items(problems=4)
    from refscore.eval import tasks

    one, two = ScoreStore(None), ScoreStore(None)
    chunk = tasks.CHUNK["chrf"]
    tasks.CHUNK["chrf"] = 5
    try:
        execute(plan(_config(), {"python": items}, one), _config(), one, 1e9, lambda: {})
        execute(plan(_config(jobs=2), {"python": items}, two), _config(jobs=2), two, 1e9, lambda: {})
    finally:
        tasks.CHUNK["chrf"] = chunk
    assert columns_for(_config(), items, one, {})["chrf"].tolist() == \
        columns_for(_config(), items, two, {})["chrf"].tolist()
