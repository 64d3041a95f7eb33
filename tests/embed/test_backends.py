"""CodeBERTScore encoder backends: every backend against torch eager on the parity corpora, how a
backend is chosen, the exported-model cache, and the window cache that makes editor updates
incremental. Timings live in benchmarks/bench_codebertscore.py, never here."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests import bert_fixtures as bf
from refscore.embed import backends
from refscore.embed.backends import BACKEND_ENV, BackendError, choose_backend, requested_backend

#: P, R, F1 and F3 of every pair, ONNX Runtime against torch eager.
TOL = 1e-4
ROOT = Path(__file__).resolve().parents[2]


# -- choosing a backend (no model) -----------------------------------------------------------------


def test_auto_is_onnx_on_a_cpu_and_torch_elsewhere(monkeypatch):
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    assert choose_backend(None, "cpu", have_onnx=True) == "onnx"
    assert choose_backend("auto", "cpu", have_onnx=False) == "torch"
    assert choose_backend(None, "cuda", have_onnx=True) == "torch"
    assert choose_backend(None, "cuda:1", have_onnx=True) == "torch"
    assert choose_backend(None, "mps", have_onnx=True) == "torch"


def test_explicit_choice_and_environment(monkeypatch):
    monkeypatch.setenv(BACKEND_ENV, "torch")
    assert choose_backend(None, "cpu", have_onnx=True) == "torch"
    assert choose_backend("onnx", "cpu", have_onnx=True) == "onnx"  # the caller wins over the env
    monkeypatch.setenv(BACKEND_ENV, " ONNX-int8 ")
    assert requested_backend() == "onnx-int8"
    monkeypatch.setenv(BACKEND_ENV, "")
    assert requested_backend() == "auto"


def test_a_backend_that_cannot_run_is_one_clear_error(monkeypatch):
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    with pytest.raises(BackendError, match="runs on the CPU only"):
        choose_backend("onnx", "cuda", have_onnx=True)
    with pytest.raises(BackendError, match="needs onnxruntime"):
        choose_backend("onnx-int8", "cpu", have_onnx=False)
    with pytest.raises(BackendError, match="not one of auto, torch, onnx, onnx-int8"):
        choose_backend("tensorrt", "cpu", have_onnx=True)
    monkeypatch.setenv(BACKEND_ENV, "jax")
    with pytest.raises(BackendError, match=r"\$REFSCORE_ENCODER_BACKEND"):
        requested_backend()


def test_only_int8_is_part_of_cache_keys(monkeypatch):
    for choice in ("auto", "torch", "onnx"):
        monkeypatch.setenv(BACKEND_ENV, choice)
        assert backends.backend_tag() == ""
    monkeypatch.setenv(BACKEND_ENV, "onnx-int8")
    assert backends.backend_tag() == "|precision=int8"


def test_cli_rejects_an_unknown_backend_in_one_line(tmp_path):
    ref, cand = tmp_path / "r.py", tmp_path / "c.py"
    ref.write_text("x = 1\n")
    cand.write_text("x = 2\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    proc = subprocess.run([sys.executable, "-m", "refscore", "score", str(ref), str(cand), "--backend", "gpu"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2
    assert "invalid choice: 'gpu'" in proc.stderr and "Traceback" not in proc.stderr


def test_editor_setting_names_the_backend_of_its_requests():
    from refscore.lsp.requests import request_for
    from refscore.lsp.settings import parse_settings

    settings, problems = parse_settings({"backend": "ONNX-int8"})
    assert not problems
    assert request_for(settings, "x = 1", ["x = 2"], "python", None, ("codebertscore",)).encoder.backend == "onnx-int8"
    settings, problems = parse_settings({"backend": "tpu"})
    assert settings.encoder.backend is None
    assert problems == ["refscore.backend: must be one of auto, torch, onnx, onnx-int8 (not 'tpu'); using the default, null"]


# -- parity with torch eager -----------------------------------------------------------------------

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
needs_onnx = pytest.mark.skipif(not backends.onnx_available(), reason="onnxruntime/onnx not installed")


@pytest.fixture(scope="module")
def pairs():
    """The parity corpus of test_codebertscore_parity (200 pairs, four languages)."""
    return bf.parity_pairs() or pytest.skip("HumanEval data not on this machine")


@pytest.fixture(scope="module")
def roberta(tmp_path_factory):
    return bf.tiny_roberta(tmp_path_factory.mktemp("tiny-roberta-backends"))


def _encoder(backend: str, model: str | None = None, layer: int | None = None):
    from refscore.embed.encoder import encoder_for
    from refscore.embed.registry import resolve_model

    spec = resolve_model("python", model, layer, prefer_paper=False)
    enc = encoder_for(spec, device="cpu", backend=backend)
    enc.cache.clear()
    enc.window_cache.clear()
    return enc


def _scores(backend: str, items, model=None, layer=None, idf=None) -> "torch.Tensor":
    from refscore.embed.bertscorer import BertScorer, ScorePair

    scorer = BertScorer(_encoder(backend, model, layer), idf=idf)
    results = scorer.score_batch([ScorePair(c, r, None, ctx) for c, r, ctx in items])
    return torch.tensor([[s.precision, s.recall, s.f1, s.f3] for s in results], dtype=torch.float64)


def _items(pairs, with_context=False):
    return [(p["hyp"], p["ref"], p["nl"] if with_context else None) for p in pairs]


@needs_onnx
@pytest.mark.parametrize("idf", [None, "references"])
def test_onnx_equals_torch_on_200_pairs_minilm(pairs, idf):
    eager = _scores("torch", _items(pairs), idf=idf)
    onnx = _scores("onnx", _items(pairs), idf=idf)
    assert (onnx - eager).abs().max().item() <= TOL


@needs_onnx
def test_onnx_equals_torch_on_long_texts_with_windows():
    """Texts of 2 to 4 windows (MiniLM's 512-token limit), every window width on the way."""
    body = "".join(f"    total_{i} = compute(values[{i}], weight={i} * 0.5)\n" for i in range(160))
    items = [(f"def long_{n}(values):\n" + body[: 1500 + 1700 * n] + "    return total_0\n",
              "def reference(values):\n" + body[: 2500 + 900 * n].replace("compute", "combine"), None)
             for n in range(4)]
    lengths = [len(_encoder("onnx").tokenize([c])[0]) for c, _, _ in items]
    assert max(lengths) > 1024 and min(lengths) < 1024
    assert (_scores("onnx", items) - _scores("torch", items)).abs().max().item() <= TOL


@needs_onnx
@pytest.mark.parametrize("with_context", [False, True])
def test_onnx_equals_torch_on_roberta(pairs, roberta, with_context):
    """The CodeBERT code path (RoBERTa: ``<s>``, ``</s>``, position ids from the padding id)."""
    items = _items(pairs[::2], with_context)
    eager = _scores("torch", items, model=roberta, layer=2)
    onnx = _scores("onnx", items, model=roberta, layer=2)
    assert (onnx - eager).abs().max().item() <= TOL


@needs_onnx
def test_drop_in_api_on_onnx_matches_code_bert_score(pairs, monkeypatch):
    """The default backend on a CPU keeps the package's numbers (test_codebertscore_parity holds
    them to 1e-5 whatever the backend; here the backend is named)."""
    from refscore.compat.bertscore_api import score

    oracle = bf.load_oracle()
    cands, refs = [p["hyp"] for p in pairs[:60]], [p["ref"] for p in pairs[:60]]
    kw = dict(model_type=bf.minilm_path(), num_layers=6)
    monkeypatch.setenv(BACKEND_ENV, "onnx")
    ours = torch.stack(list(score(cands, refs, **kw)))
    theirs = torch.stack(list(oracle.score(cands, refs, **kw)))
    assert (ours - theirs).abs().max().item() <= 1e-5


@needs_onnx
def test_int8_is_opt_in_reports_its_parity_and_says_so_in_the_signature(pairs):
    from refscore.embed.bertscorer import BertScorer
    from refscore.embed.onnx_export import export_report

    items = _items(pairs[:40])
    eager = _scores("torch", items)
    quant = _scores("onnx-int8", items)
    enc = _encoder("onnx-int8")
    assert enc.backend == "onnx-int8" and enc.precision == "int8"
    assert export_report(enc.runner.path)["quantized"] == "int8"
    assert export_report(enc.runner.path)["relative_difference"] > 0
    # approximate, not wrong: within a few hundredths of torch eager, and ranks pairs alike
    diff = (quant - eager).abs()
    assert diff.max().item() < 0.1 and diff.mean().item() < 0.02
    assert torch.corrcoef(torch.stack([quant[:, 2], eager[:, 2]]))[0, 1].item() > 0.99
    assert "|precision:int8|" in BertScorer(enc).signature(False)
    assert "precision" not in BertScorer(_encoder("onnx")).signature(False)
    assert BertScorer(_encoder("onnx")).signature(True) == BertScorer(_encoder("torch")).signature(True)


# -- the exported model on disk --------------------------------------------------------------------


@needs_onnx
def test_export_is_cached_keyed_and_rebuilt_when_damaged(roberta, tmp_path, monkeypatch):
    from refscore.embed.encoder import Encoder
    from refscore.embed.onnx_export import ensure_exported, export_report, exported_path
    from refscore.embed.registry import resolve_model

    monkeypatch.setenv("REFSCORE_ONNX_DIR", str(tmp_path / "onnx"))
    spec = resolve_model(None, roberta, 2)
    path = ensure_exported(replace(spec, layer=2))
    assert path.parent == tmp_path / "onnx" and export_report(path)["relative_difference"] <= 1e-4
    stamp = path.stat().st_mtime_ns
    assert ensure_exported(replace(spec, layer=2)) == path and path.stat().st_mtime_ns == stamp
    assert exported_path(replace(spec, layer=1)) != path  # the layer is part of the key
    path.write_bytes(b"not an onnx file")
    enc = Encoder(spec, device="cpu", backend="onnx")  # a damaged file is exported again
    assert enc.backend == "onnx" and path.stat().st_size > 1000
    assert enc.model is None  # the torch model is not loaded when the export is on disk


@needs_onnx
@pytest.mark.parametrize("model", ["minilm", "roberta"])
def test_layer_0_runs_on_onnx_and_equals_torch(model, roberta, tmp_path, monkeypatch):
    """Layer 0 (the embeddings) never reads the attention mask, so its graph has no such input:
    feeding one failed every export check (``Invalid input name: attention_mask``) and
    ``refscore score --layer 0`` warned on every run that ONNX Runtime was unavailable."""
    from refscore.embed.encoder import Encoder
    from refscore.embed.registry import resolve_model

    monkeypatch.setenv("REFSCORE_ONNX_DIR", str(tmp_path / "onnx"))
    spec = resolve_model("python", roberta if model == "roberta" else None, 0, prefer_paper=False)
    onnx = Encoder(spec, device="cpu", backend="onnx")
    eager = Encoder(spec, device="cpu", backend="torch")
    assert onnx.backend == "onnx" and onnx.layer == 0
    texts = ["def add(a, b):\n    return a + b\n", "x = 1"]
    for got, want in zip(onnx.embed(texts), eager.embed(texts)):
        assert (got.embeddings - want.embeddings).abs().max().item() <= 1e-5


@needs_onnx
def test_a_layer_0_failure_remembered_before_the_fix_is_tried_again(roberta, tmp_path, monkeypatch):
    from refscore.embed.onnx_export import ensure_exported, exported_path
    from refscore.embed.registry import resolve_model

    monkeypatch.setenv("REFSCORE_ONNX_DIR", str(tmp_path / "onnx"))
    spec = resolve_model(None, roberta, 0)
    failed = exported_path(replace(spec, layer=0)).with_suffix(".failed")
    failed.parent.mkdir(parents=True)
    failed.write_text("the ONNX export does not reproduce torch eager (plain: InvalidArgument: [ONNXRuntimeError]"
                      " : 2 : INVALID_ARGUMENT : Invalid input name: attention_mask)", encoding="utf-8")
    assert ensure_exported(replace(spec, layer=0)).is_file() and not failed.exists()


@needs_onnx
def test_auto_falls_back_to_torch_when_the_export_fails(roberta, tmp_path, monkeypatch, caplog):
    from refscore.embed import onnx_export
    from refscore.embed.encoder import Encoder
    from refscore.embed.registry import resolve_model

    def broken(*args, **kwargs):
        raise onnx_export.ExportError("the ONNX export does not reproduce torch eager (test)")

    from refscore.embed import encoder as encoder_module

    monkeypatch.setattr(onnx_export, "ensure_exported", broken)
    # the warning reaches caplog whatever an earlier test in this worker left behind (a root level
    # raised by an in-process daemon's log set-up, a library's logging config disabling loggers)
    monkeypatch.setattr(encoder_module.log, "disabled", False)
    caplog.set_level(logging.WARNING, logger=encoder_module.log.name)
    spec = resolve_model(None, roberta, 2)
    enc = Encoder(spec, device="cpu", backend="auto")
    assert enc.backend == "torch" and enc.model is not None
    assert "using torch" in caplog.text
    with pytest.raises(onnx_export.ExportError):
        Encoder(spec, device="cpu", backend="onnx")  # asked for by name: the error, not a fallback


@needs_onnx
def test_a_failed_export_is_remembered(roberta, tmp_path, monkeypatch):
    from refscore.embed import onnx_export
    from refscore.embed.registry import resolve_model

    monkeypatch.setenv("REFSCORE_ONNX_DIR", str(tmp_path / "onnx"))
    calls = []

    def unsupported(*args):
        calls.append(args)
        raise RuntimeError("Exporting the operator 'aten::frobnicate' is not supported")

    monkeypatch.setattr(onnx_export, "_export", unsupported)
    spec = resolve_model(None, roberta, 2)
    for _ in range(2):
        with pytest.raises(onnx_export.ExportError, match="frobnicate.*remembered in"):
            onnx_export.ensure_exported(replace(spec, layer=2))
    assert len(calls) == 1  # the second process (or call) does not try again


@needs_onnx
def test_exports_of_deleted_models_are_pruned(roberta, tmp_path, monkeypatch):
    import shutil

    from refscore.embed.onnx_export import ensure_exported
    from refscore.embed.registry import ModelSpec, resolve_model

    monkeypatch.setenv("REFSCORE_ONNX_DIR", str(tmp_path / "onnx"))
    gone = tmp_path / "gone-model"
    shutil.copytree(roberta, gone)
    old = ensure_exported(ModelSpec("gone", str(gone), 1))
    shutil.rmtree(gone)
    spec = resolve_model(None, roberta, 1)
    kept = ensure_exported(replace(spec, layer=1))
    assert kept.is_file() and not old.exists() and not old.with_suffix(".json").exists()


# -- incremental: windows cached by their tokens -------------------------------------------------


@pytest.mark.parametrize("backend", ["torch", pytest.param("onnx", marks=needs_onnx)])
def test_an_edit_reencodes_only_the_windows_it_touched(backend):
    """A long document edited near its end: the windows before the edit come from the window
    cache, and the vectors equal a full encode (bit for bit on ONNX Runtime, whose calls hold one
    width only; within float rounding of padded batches on torch)."""
    enc = _encoder(backend)
    lines = [f"    value_{i} = table[{i}] * factor + offset_{i % 7}\n" for i in range(150)]
    before = "def build(table, factor):\n" + "".join(lines)
    after = before.replace("offset_3\n    value_144", "offset_3 + 1\n    value_144")
    assert after != before
    calls = []
    original = enc.run_model

    def counting(ids, mask):
        calls.append(ids.shape[0])
        return original(ids, mask)

    enc.run_model = counting
    try:
        first = enc.embed([before])[0]
        windows = sum(calls)
        calls.clear()
        edited = enc.embed([after])[0]
        reused = windows - sum(calls)
        enc.cache.clear()
        enc.window_cache.clear()
        full = enc.embed([after])[0]
    finally:
        del enc.run_model
    assert windows >= 3 and len(first) + 2 == len(edited) == len(full)  # "+ 1": two more tokens
    assert reused >= windows - 2, (windows, reused)  # only the windows from the edit on ran again
    if backend == "onnx":
        assert torch.equal(edited.embeddings, full.embeddings)
    else:
        assert torch.allclose(edited.embeddings, full.embeddings, atol=1e-5)


# -- the command line and the daemon ------------------------------------------------------------


def _cli_env(tmp_path: Path) -> dict[str, str]:
    from tests.lsp.daemon import daemon_env

    return {**os.environ, "PYTHONPATH": str(ROOT / "server"), "HF_HUB_OFFLINE": "1", **daemon_env(tmp_path)}


@needs_onnx
def test_score_backend_option_travels_to_the_daemon_with_the_same_numbers(tmp_path):
    """``--backend`` is a request setting like the model or layer: the daemon honours it (no switch
    to in-process scoring), and torch and ONNX give the same numbers there and in this process."""
    import json

    from tests.support.daemons import daemon_pids_in, refscore, stop_daemon_in

    ref, cand = tmp_path / "ref.py", tmp_path / "cand.py"
    ref.write_text("def add(a, b):\n    return a + b\n")
    cand.write_text("def add(x, y):\n    total = x + y\n    return total\n")
    env = _cli_env(tmp_path)
    answers = {}
    try:
        for backend in ("torch", "onnx", "onnx-int8"):
            for where in ("daemon", "local"):
                done = refscore("score", str(ref), str(cand), "--json", "--metrics", "codebertscore",
                                "--backend", backend, *(["--no-daemon"] if where == "local" else []), env=env)
                assert done.returncode == 0 and "note:" not in done.stderr, done.stderr
                answers[backend, where] = json.loads(done.stdout)["codebertscore"]
        assert daemon_pids_in(tmp_path / "run")  # the daemon served the requests that allowed it
    finally:
        stop_daemon_in(tmp_path / "run")
    for backend in ("torch", "onnx"):
        for key in ("precision", "recall", "f1", "f3"):
            assert abs(answers[backend, "daemon"][key] - answers["torch", "local"][key]) <= TOL
    assert answers["torch", "daemon"]["signature"] == answers["onnx", "local"]["signature"]
    assert "precision:int8" in answers["onnx-int8", "daemon"]["signature"]
    assert answers["onnx-int8", "daemon"]["f1"] == answers["onnx-int8", "local"]["f1"]


@needs_onnx
def test_daemon_backend_option_and_status(tmp_path):
    import json

    from tests.support.daemons import refscore, stop_daemon_in, wait_until

    env = _cli_env(tmp_path)
    try:
        started = refscore("daemon", "start", "--backend", "torch", env=env)
        assert started.returncode == 0, started.stderr

        def models():  # the model loads in the background after start
            return json.loads(refscore("daemon", "status", "--json", env=env).stdout).get("models")

        assert wait_until(models, timeout=180, interval=0.5)
        assert {m.get("backend") for m in models()} == {"torch"}
        bad = refscore("daemon", "start", "--backend", "cuda", env=env)
        assert bad.returncode == 2 and "invalid choice" in bad.stderr
    finally:
        stop_daemon_in(tmp_path / "run")
