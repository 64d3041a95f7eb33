"""`refscore.score(..., scorer="daemon")`: requests that travel to a real daemon (private runtime
directory) carry what the daemon accepts."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import refscore
from tests.service.test_daemon import place  # noqa: F401 - the fixture

CANDIDATE, REFERENCE = "def add(a, b):\n    return a + b\n", "def add(x, y):\n    return x + y\n"


def test_a_relative_idf_path_reaches_the_daemon_as_an_absolute_one(place, tmp_path: Path,  # noqa: F811
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon has its own working folder and refuses a relative IDF path; the API sent it
    as given, so ``scorer="daemon"`` failed and ``"daemon_or_local"`` warned that "the scoring
    daemon stopped answering" and scored in-process. The command line sends an absolute path."""
    (tmp_path / "idf.json").write_text(json.dumps({"idf": {"101": 0.0, "102": 0.0}, "default": 1.0}))
    monkeypatch.chdir(tmp_path)
    kwargs = dict(language="python", metrics=("codebertscore",), idf="idf.json")
    local, = refscore.score([CANDIDATE], [REFERENCE], **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no note that the daemon failed
        remote, = refscore.score([CANDIDATE], [REFERENCE], scorer="daemon", **kwargs)
    assert remote.errors == () and remote.codebertscore_f1 == pytest.approx(local.codebertscore_f1, abs=1e-6)


def test_a_relative_model_folder_reaches_the_daemon_as_an_absolute_one(place,  # noqa: F811
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``model="models/mini"`` (a folder under the working folder) scored in-process, but the
    daemon looked for it under its own working folder: every row CodeBERTScore None ("model ...
    is not a local folder")."""
    from refscore.embed.registry import embedded_model_path

    folder = Path(embedded_model_path())
    monkeypatch.chdir(folder.parent.parent)
    kwargs = dict(language="python", metrics=("codebertscore",), model=f"{folder.parent.name}/{folder.name}")
    local, = refscore.score([CANDIDATE], [REFERENCE], **kwargs)
    remote, = refscore.score([CANDIDATE], [REFERENCE], scorer="daemon", **kwargs)
    assert remote.errors == () and remote.codebertscore_f1 == pytest.approx(local.codebertscore_f1, abs=1e-6)
    assert dict(remote.signatures)["codebertscore"] == dict(local.signatures)["codebertscore"]


def test_the_command_line_sends_a_relative_model_folder_as_an_absolute_one(place, tmp_path: Path) -> None:  # noqa: F811
    """`refscore score --model models/mini` through the daemon said "codebertscore unavailable":
    the daemon looked for the folder under its own working folder."""
    import subprocess
    import sys

    from refscore.embed.registry import embedded_model_path

    folder = Path(embedded_model_path())
    (tmp_path / "a.py").write_text(CANDIDATE, encoding="utf-8")
    (tmp_path / "ref.py").write_text(REFERENCE, encoding="utf-8")
    relative = f"{folder.parent.name}/{folder.name}"

    def score(*extra: str) -> dict:
        run = subprocess.run([sys.executable, "-m", "refscore", "score", str(tmp_path / "ref.py"), str(tmp_path / "a.py"),
                              "--metrics", "codebertscore", "--model", relative, "--json", *extra],
                             capture_output=True, text=True, cwd=folder.parent.parent, env=place.env, timeout=300)
        assert run.returncode == 0 and "unavailable" not in run.stderr, run.stderr
        return json.loads(run.stdout)

    local, remote = score("--no-daemon"), score()
    assert remote["scores"]["codebertscore_f1"] == pytest.approx(local["scores"]["codebertscore_f1"], abs=1e-6)
    assert place.socket.exists()  # it did go through the daemon
