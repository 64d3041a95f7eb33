"""Issue 42 item 11 (Gradescope): the autograder's plain ``/autograder/submission`` folder is one
submission whose files go to their problems by name (no per-problem ``pattern``), named by
``submission_metadata.json``; a run that is not one submission is refused before anything is
scored, and leaves no results or feedback file behind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from refscore.cli import main
from tests import class_hidden as cls

pytestmark = pytest.mark.timeout(300)
SCHEMA = Path(__file__).resolve().parents[1] / "data" / "classroom" / "gradescope-results.schema.json"


def autograder(tmp_path: Path, student: str, metadata: dict | None = None) -> Path:
    """``/autograder`` as Gradescope lays it out for one student of the hidden class."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    for problem, text in cls.files_of(next(p for p in cls.PEOPLE if p.key == student)).items():
        (root / "submission" / f"{problem}.py").write_text(text, encoding="utf-8")
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    (root / "source").mkdir()
    return root


def _mapping(root: Path, layout: str | None) -> Path:
    path = cls.mapping(root / "source" / "week7.toml", root / "submission", layout or "plain")
    text = path.read_text().replace('submissions = ["submission"]', f'submissions = ["{root / "submission"}"]')
    if layout is None:
        text = text.replace('layout = "plain"\n', "")
    path.write_text(text)
    return path


def _run(root: Path, mapping: Path, *extra: str) -> int:
    rubric = root / "source" / "rubric.toml"
    rubric.write_text('points = 10\nlate = { per_day = "10%" }\n')
    return main(["grade", "--mapping", str(mapping), "--metrics", "codebleu,behaviour", "--rubric", str(rubric),
                 "--gradescope", str(root / "results" / "results.json"), "--feedback", str(root / "feedback"),
                 "--progress", "none", "-q", "--no-cache", "--allow-outside", str(root), *extra])


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
def test_the_autograder_folder_is_one_submission_without_patterns(tmp_path):
    meta = {"users": [{"name": "Hal Hill", "email": "hal@uni.example", "sid": "9007"}],
            "created_at": "2026-12-03T10:00:00+00:00", "assignment": {"due_date": "2026-12-01T23:59:00+00:00"}}
    root = autograder(tmp_path, "hal", meta)
    assert _run(root, _mapping(root, "gradescope")) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, json.loads(SCHEMA.read_text()))
    tests = {t["name"]: t for t in results["tests"]}
    # hal handed in to_roman (correct) and balanced (wrong), nothing for dedupe
    assert tests["dedupe"]["score"] == 0 and tests["to_roman"]["score"] > tests["balanced"]["score"]
    # 34 hours late: two days begun, 10% of the points each
    assert "late 1.42 days (10% of the points per day late): -2" in tests["to_roman"]["output"]
    assert results["extra_data"]["refscore"]["student"] == "9007"
    assert "what your code does" in results["output"] and "handing in late" in results["output"]
    assert sorted(p.name for p in (root / "feedback").iterdir()) == ["Hal_Hill_9007.html", "Hal_Hill_9007.md"]


def test_several_students_are_refused_before_scoring(tmp_path, monkeypatch, capsys):
    """The folder read file by file is three "students" (one per file): refused, exit 2, before the
    scorer is ever called, and no results or feedback file is left."""
    from refscore.scoring import scorer

    def no_scoring(*_args, **_kwargs):
        raise AssertionError("refused runs must not score")

    monkeypatch.setattr(scorer.LocalScorer, "score_many", no_scoring)
    root = autograder(tmp_path, "amy")
    assert _run(root, _mapping(root, None)) == 2
    said = capsys.readouterr().err
    assert "this run has 3 students" in said and 'layout = "gradescope"' in said
    assert not (root / "results").exists() and not (root / "feedback").exists()
