"""``refscore eval`` and the files its options name, each a one-line answer that fits: a ``--data``
that is a file, a ``--from-scores`` or ``--cache-from`` that is missing or no scores file (a
pickle, a plain ``.npy``, an empty file), options that only apply with another one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_a_data_path_that_is_a_file_is_not_a_folder_not_missing(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text("{}", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "refscore", "eval", "--data", str(data), "--metrics", "chrf"],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO / "server")})
    assert result.returncode == 3, result.stderr
    assert result.stderr.strip().splitlines() == [f"refscore eval: data folder {data}: is a file, not a folder"]


def test_the_paper_protocol_says_the_same_of_a_data_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.eval.test_eval_paper import write_constants

    data = tmp_path / "data.json"
    data.write_text("{}", encoding="utf-8")
    assert main(["eval", "--protocol", "paper", "--paper-folds", str(write_constants(tmp_path)), "--data", str(data),
                 "--languages", "python"]) == 3
    assert _one_line(capsys) == f"refscore eval: data folder {data}: is a file, not a folder"


def _not_scores(tmp_path: Path, kind: str) -> Path:
    """A file that is no scores file: a pickle, a .npz holding an object array, a plain .npy, an
    empty file, a text file."""
    import pickle

    import numpy as np

    path = tmp_path / f"{kind}.npz"
    if kind == "pickle":
        path.write_bytes(pickle.dumps({"a": 1}))
    elif kind == "objects":
        with open(path, "wb") as handle:
            np.savez(handle, __meta__=np.array([{"a": 1}], dtype=object))
    elif kind == "npy":
        with open(path, "wb") as handle:
            np.save(handle, np.arange(3))
    elif kind == "empty":
        path.write_bytes(b"")
    else:
        path.write_text("x = 1\n", encoding="utf-8")
    return path


KINDS = {"pickle": "a Python pickle, which is never loaded", "objects": "it holds Python objects, which are never loaded",
         "npy": "a single .npy array, not a .npz archive", "empty": "an empty file", "text": "not a .npz archive"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_from_scores_that_is_no_scores_file_says_why_in_one_line(tmp_path: Path, kind: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A pickle passed on numpy's "allow_pickle" advice; a plain .npy and an empty file were
    internal errors (TypeError, EOFError)."""
    path = _not_scores(tmp_path, kind)
    assert main(["eval", "--from-scores", str(path)]) == 3
    assert _one_line(capsys) == f"refscore eval: {path}: not a scores file written by --save-scores ({KINDS[kind]})"


def test_a_missing_from_scores_is_no_such_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It said "(FileNotFoundError: ... is not a regular file)"."""
    missing = tmp_path / "typo.npz"
    assert main(["eval", "--from-scores", str(missing)]) == 3
    assert _one_line(capsys) == f"refscore eval: --from-scores {missing}: no such file"
    assert main(["eval", "--from-scores", str(tmp_path)]) == 3
    assert _one_line(capsys) == f"refscore eval: --from-scores {tmp_path}: is a directory, not a scores file"


def test_a_cache_from_that_is_no_scores_file_names_cache_from_not_no_cache(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It ended "move it away or use --no-cache", which does not apply to --cache-from."""
    from refscore.eval.data import default_data_dir

    data = default_data_dir()
    if not (data / "conala").is_dir():
        pytest.skip("no ../shared/data")
    path, out = _not_scores(tmp_path, "text"), tmp_path / "r.json"
    assert main(["eval", "--data", str(data), "--languages", "conala", "--conala-sample", "2", "--metrics", "chrf",
                 "--folds", "2", "--cache-from", str(path), "--out", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"refscore eval: {path}: not a scores file written by --save-scores (not a .npz archive); "
                       "name a file --save-scores wrote, or leave this --cache-from out"), err
    assert "--no-cache" not in err[-1] and not out.exists()
    assert main(["eval", "--from-scores", str(tmp_path), "--cache-from", str(tmp_path)]) == 3
    assert _one_line(capsys) == f"refscore eval: --cache-from {tmp_path}: is a directory, not a scores file"


def test_a_ray_address_without_the_ray_engine_is_a_usage_error_as_in_grade(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``eval --ray-address`` without ``--engine ray`` was ignored in silence (the run scored here,
    for as long as it takes); ``grade`` refuses it in one line, and so does ``eval`` now."""
    out = tmp_path / "r.json"
    assert main(["eval", "--ray-address", "127.0.0.1:1", "--metrics", "chrf", "--out", str(out)]) == 2
    assert _one_line(capsys) == "refscore eval: --ray-address is for --engine ray"
    assert not out.exists()


def test_the_paper_protocol_refuses_the_options_it_does_not_read(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``--protocol paper`` took ``--from-scores``, ``--engine ray``, ``--jobs`` and others and
    ignored them in silence, and its ``--out a.py`` overwrote a source file."""
    from tests.eval.test_eval_paper import write_constants

    folds = write_constants(tmp_path)
    paper = ["eval", "--protocol", "paper", "--paper-folds", str(folds), "--languages", "python", "--sample", "1"]
    assert main([*paper, "--from-scores", str(tmp_path / "s.npz"), "--jobs", "4", "--engine", "ray"]) == 2
    assert _one_line(capsys) == ("refscore eval: --protocol paper does not read --jobs, --engine, --from-scores; "
                                 "leave them out")
    source = tmp_path / "a.py"
    source.write_text("x = 1\n", encoding="utf-8")
    assert main([*paper, "--out", str(source)]) == 2
    assert "names a python source file" in _one_line(capsys)
    assert source.read_text(encoding="utf-8") == "x = 1\n"


def test_from_scores_needs_no_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The analysis from saved scores reads the settings (and data folder) the file holds, yet a
    missing default data folder stopped it: "data folder not found"."""
    from refscore.eval.data import default_data_dir

    data = default_data_dir()
    if not (data / "conala").is_dir():
        pytest.skip("no ../shared/data")
    scores, out = tmp_path / "s.npz", tmp_path / "r.json"
    assert main(["eval", "--data", str(data), "--languages", "conala", "--conala-sample", "2", "--metrics", "chrf",
                 "--folds", "2", "--save-scores", str(scores)]) == 0
    monkeypatch.setenv("REFSCORE_DATA_DIR", str(tmp_path / "elsewhere"))  # another machine: no data here
    capsys.readouterr()
    assert main(["eval", "--from-scores", str(scores), "--out", str(out)]) == 0, capsys.readouterr().err
    assert out.exists()


def test_from_scores_warns_once_about_scoring_options_it_does_not_use(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--from-scores`` takes every setting from the file, so ``--languages``, ``--metrics``,
    ``--jobs`` and the other scoring options changed nothing, without a word: one warning line
    names those given; the analysis is the file's (the same as without them)."""
    from refscore.eval.data import default_data_dir

    data = default_data_dir()
    if not (data / "conala").is_dir():
        pytest.skip("no ../shared/data")
    scores, plain, given = tmp_path / "s.npz", tmp_path / "plain.json", tmp_path / "given.json"
    assert main(["eval", "--data", str(data), "--languages", "conala", "--conala-sample", "2", "--metrics", "chrf",
                 "--folds", "2", "--save-scores", str(scores)]) == 0
    capsys.readouterr()
    assert main(["eval", "--from-scores", str(scores), "--out", str(plain)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["eval", "--from-scores", str(scores), "--out", str(given), "--languages", "python",
                 "--metrics", "codebleu", "--jobs", "3", "--folds", "4"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("refscore: warning: --languages, --metrics, --folds, --jobs ")
    assert "--from-scores" in warnings[0] and warnings[0].endswith(": ignored"), warnings
    assert "--out" not in warnings[0]
    assert json.loads(given.read_text())["agreement"] == json.loads(plain.read_text())["agreement"]
