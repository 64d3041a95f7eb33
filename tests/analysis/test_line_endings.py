"""Line endings do not change a score: the same code with LF, CRLF or lone CR line ends gets the
same CodeBLEU (every component, every language tried) and the same CodeBERTScore, and the
ranges stay ranges in the text as given."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refscore.scoring.codebleu import score_codebleu

REPO = Path(__file__).resolve().parents[2]
PARITY = REPO / "tests/data/parity"
ENDINGS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}


def _pairs() -> list[tuple[str, str, str]]:
    """(language, reference, candidate): the examples and the first pair of each parity file."""
    pairs = [("python", (REPO / "examples/python/reference.py").read_text(encoding="utf-8"),
              (REPO / "examples/python/candidate_close.py").read_text(encoding="utf-8")),
             ("java", (REPO / "examples/java/Reference.java").read_text(encoding="utf-8"),
              (REPO / "examples/java/CandidateLoop.java").read_text(encoding="utf-8")),
             ("javascript", "function sum(xs) {\n  let t = 0;\n  for (const x of xs) {\n    t += x;\n  }\n  return t;\n}\n",
              "function sum(values) {\n  let total = 0;\n  values.forEach(v => {\n    total = total + v;\n  });\n"
              "  return total;\n}\n")]
    for path in sorted(PARITY.glob("*.jsonl")):
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        pairs.append((path.stem, first["reference"], first["candidate"]))
    return pairs


def _with(text: str, ending: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", ENDINGS[ending])


@pytest.mark.parametrize("language, reference, candidate", _pairs(), ids=lambda v: v if len(v) < 12 else "")
def test_codebleu_is_the_same_for_every_line_ending(language: str, reference: str, candidate: str) -> None:
    results = {e: score_codebleu([_with(reference, e)], _with(candidate, e), language) for e in ENDINGS}
    lf = results["lf"]
    for ending in ("crlf", "cr"):
        assert results[ending].as_package_dict() == pytest.approx(lf.as_package_dict()), (language, ending)
    # explanations are ranges in the text as given: the same code under each
    cr_reference = _with(reference, "cr")
    assert [(x.component, x.text) for x in results["cr"].explanations] == \
        [(x.component, x.text) for x in lf.explanations]
    for x, y in zip(results["cr"].explanations, lf.explanations):
        assert (x.start, x.end) == (y.start, y.end)  # one character for one: same offsets
        assert cr_reference[x.start:x.end].replace("\r", "\n") == reference[y.start:y.end]


def _score(*args: str) -> list[dict]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-m", "refscore", "score", *args, "--json", "--no-daemon"],
                            capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_cli_scores_lone_cr_like_lf_with_both_metrics(tmp_path: Path) -> None:
    reference = (REPO / "examples/python/reference.py").read_text(encoding="utf-8")
    candidate = (REPO / "examples/python/candidate_close.py").read_text(encoding="utf-8")
    paths = {}
    for ending in ENDINGS:
        paths[ending] = tmp_path / f"cand_{ending}.py"
        paths[ending].write_bytes(_with(candidate, ending).encode("utf-8"))
        (tmp_path / f"ref_{ending}.py").write_bytes(_with(reference, ending).encode("utf-8"))
    rows = _score(str(tmp_path / "ref_lf.py"), *(str(paths[e]) for e in ENDINGS))
    lf, crlf, cr = rows
    for row in (crlf, cr):
        assert row["codebleu_native"] == pytest.approx(lf["codebleu_native"])
        assert row["codebertscore"]["f1"] == pytest.approx(lf["codebertscore"]["f1"], abs=1e-6)
        assert [t["text"] for t in row["tokens"]] == [t["text"] for t in lf["tokens"]]
        # token ranges count lines the LSP way, so a lone CR ends a line as LF does
        assert [t["range"] for t in row["tokens"]] == [t["range"] for t in lf["tokens"]]
    [cr_ref] = _score(str(tmp_path / "ref_cr.py"), str(paths["cr"]), "--metrics", "codebleu")
    assert cr_ref["codebleu_native"] == pytest.approx(lf["codebleu_native"])


def test_functions_are_found_with_lone_cr_line_ends() -> None:
    """Per-function pairing (lenses, --per-function, scoreText regions) parses the same functions."""
    from refscore import languages
    from refscore.analysis.functions import top_level_functions
    from tests.lsp import samples

    spec = languages.get("python")
    lf = top_level_functions(samples.REFERENCE, spec)
    cr = top_level_functions(_with(samples.REFERENCE, "cr"), spec)
    assert [f.name for f in lf] == ["fizzbuzz", "total"]
    assert [(f.name, f.start, f.end, f.line) for f in cr] == [(f.name, f.start, f.end, f.line) for f in lf]
