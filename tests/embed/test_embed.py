"""The embed package: windows, cache, registry, device choice, offline loading, lazy imports."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests import bert_fixtures as bf
from refscore.embed.cache import EmbeddingCache
from refscore.embed.device import select_device, select_dtype
from refscore.embed.registry import (
    EMBEDDED_MODEL_ID,
    ModelNotAvailableError,
    local_model_path,
    paper_model,
    resolve_model,
)
from refscore.embed.windows import plan_windows
from refscore.settings_schema import EncoderChoice

SERVER = str(Path(__file__).resolve().parents[2] / "server")


def _run(code: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env["PYTHONPATH"] = SERVER + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("length", [1, 511, 512, 513, 700, 1000, 1500, 4097])
def test_windows_cover_every_token_once(length):
    wins = plan_windows(length, 512)
    kept = [i for w in wins for i in range(w.keep_start, w.keep_end)]
    assert kept == list(range(length))
    assert all(w.end - w.start <= 512 and w.start <= w.keep_start <= w.keep_end <= w.end for w in wins)


def test_windows_equal_package_plan():
    pytest.importorskip("torch")
    bf.load_oracle()
    from code_bert_score import utils
    for length in (10, 512, 513, 900, 1300, 2049):
        theirs = utils.get_window_indices(length, 512, 0.5)
        ours = [(w.start, w.end, w.keep_start - w.start, w.keep_end - w.start) for w in plan_windows(length, 512)]
        assert ours == [tuple(t) for t in theirs]


def test_cache_is_bounded_lru():
    cache = EmbeddingCache(max_entries=2, max_bytes=100)
    cache.put("a", 1, 10)
    cache.put("b", 2, 10)
    assert cache.get("a") == 1  # a is now most recent
    cache.put("c", 3, 10)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    cache.put("d", 4, 95)  # over the byte bound: evicts until it fits
    assert len(cache) == 1 and cache.nbytes == 95
    cache.put("huge", 5, 1000)
    assert cache.get("huge") is None


def test_registry_is_local_only():
    assert paper_model("python") == ("neulab/codebert-python", 11)
    assert paper_model("java") == ("neulab/codebert-java", 7)
    assert paper_model("js") == ("neulab/codebert-javascript", 10)
    assert paper_model("rust") == ("microsoft/codebert-base-mlm", 10)
    spec = resolve_model("python")
    if local_model_path("neulab/codebert-python") is None:
        assert (spec.model_id, spec.layer) == (EMBEDDED_MODEL_ID, 6)
        assert Path(spec.path).is_dir()
    with pytest.raises(ModelNotAvailableError, match="never downloads"):
        resolve_model(model="no-such-org/no-such-model-xyz")
    assert resolve_model(model=bf.minilm_path(), layer=3).layer == 3


def test_device_and_precision(monkeypatch):
    assert select_device("cpu") == "cpu"
    monkeypatch.setenv("REFSCORE_DEVICE", "cpu")
    assert select_device() == "cpu"
    assert select_dtype("cpu", True) == "float32"
    assert select_dtype("cuda", None) == "float16" and select_dtype("cuda:0", False) == "float32"


def test_import_refscore_does_not_import_torch():
    proc = _run("""
        import sys, refscore, refscore.embed, refscore.metrics.codebertscore
        import refscore.embed.bertscorer, refscore.metrics.codebertscore_result, refscore.embed.models
        print("torch" in sys.modules, "transformers" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_no_network_when_hub_env_unset():
    """HF_HUB_OFFLINE unset, an unreachable endpoint, and every socket connect recorded."""
    pytest.importorskip("torch")
    proc = _run("""
        import socket
        attempts = []
        def refuse(self, address, *a, **k):
            attempts.append(address)
            raise OSError("network disabled in test")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = lambda address, *a, **k: refuse(None, address)
        from refscore.embed.models import get_default_scorer
        res = get_default_scorer("python").score("return a + b", "return x + y", context="add")
        print("ATTEMPTS", len(attempts), res.model, round(res.f1, 4))
    """, {"HF_ENDPOINT": "http://10.255.255.1:9", "HF_HUB_ETAG_TIMEOUT": "1"})
    assert proc.returncode == 0, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("ATTEMPTS")][0]
    assert line.split()[1] == "0", proc.stdout


def test_encoder_reports_and_reuses_cache():
    pytest.importorskip("torch")
    from refscore.embed.encoder import load_encoder

    enc = load_encoder(EncoderChoice(device="cpu"), prefer_paper=False)
    assert enc.describe()["model"] == EMBEDDED_MODEL_ID and enc.window == 512
    enc.cache.clear()
    first = enc.embed(["def f(): pass", "def f(): pass", "x"])
    assert first[0] is first[1] and first[0].embeddings.shape == (len(first[0].ids), 384)
    hits = enc.cache.hits
    again = enc.embed(["x"])
    assert enc.cache.hits == hits + 1 and again[0] is first[2]


def test_token_budget_splits_batches_without_changing_embeddings():
    """Many long texts at once (the daemon's coalesced batches) are cut into model calls of at
    most ``max_batch_tokens`` tokens; the vectors are those of one text per call."""
    torch = pytest.importorskip("torch")
    from refscore.embed.encoder import MAX_BATCH_TOKENS, load_encoder

    enc = load_encoder(EncoderChoice(device="cpu"), prefer_paper=False)
    assert enc.max_batch_tokens == MAX_BATCH_TOKENS["cpu"]
    texts = [f"def f{i}(a, b):\n" + "    a = a + b * 2\n" * (20 + 7 * i) for i in range(12)]
    calls = []
    forward = enc.run_model

    def counting(ids, mask):
        calls.append(tuple(ids.shape))
        return forward(ids, mask)

    saved = enc.max_batch_tokens
    enc.cache.clear()
    enc.run_model = counting
    try:
        enc.max_batch_tokens = 1024
        batched = [e.embeddings for e in enc.embed(texts)]
        assert len(calls) > 1 and all(rows * width <= 1024 or rows == 1 for rows, width in calls)
        enc.cache.clear()
        enc.window_cache.clear()
        alone = [enc.embed([t])[0].embeddings for t in texts]
    finally:
        del enc.run_model
        enc.max_batch_tokens = saved
        enc.cache.clear()
    for a, b in zip(batched, alone):
        assert torch.allclose(a, b, atol=1e-4)


def test_concurrent_embedding_from_threads_matches_sequential():
    """The daemon's lanes call one encoder from several threads at once."""
    torch = pytest.importorskip("torch")
    import threading

    from refscore.embed.encoder import load_encoder

    enc = load_encoder(EncoderChoice(device="cpu"), prefer_paper=False)
    texts = [f"def g{i}(x):\n    return x * {i} + " + " + ".join(f"y{j}" for j in range(i % 17)) for i in range(48)]
    enc.cache.clear()
    sequential = [enc.embed([t])[0].embeddings for t in texts]
    enc.cache.clear()
    results: dict[int, object] = {}
    errors: list[BaseException] = []

    def work(part: int) -> None:
        try:
            for i in range(part, len(texts), 4):
                results[i] = enc.embed([texts[i]])[0].embeddings
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=work, args=(p,)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    enc.cache.clear()
    assert not errors
    for i, expected in enumerate(sequential):
        assert torch.allclose(results[i], expected, atol=1e-5)
