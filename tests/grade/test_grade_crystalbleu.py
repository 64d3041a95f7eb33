"""``refscore grade --metrics crystalbleu``: the ignored n-grams come from the run's texts; a
run too small for them says so in one line per submission; ``score`` refuses it."""

from __future__ import annotations

import json

from refscore.cli import main
from refscore.metrics.crystalbleu import code_tokens, ignored_ngrams, sentence_crystalbleu

REFERENCE = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"


def _submissions(tmp_path, count):
    paths = []
    for k in range(count):
        body = [f"    return sum(xs) + {k}\n", f"    s = {k}\n    for x in xs:\n        s += x\n    return s\n",
                f"    t = 0\n    for v in xs:\n        t = t + v * {k}\n    return t\n"][k % 3]
        path = tmp_path / f"sub{k:02d}.py"
        path.write_text(f"def total(xs):\n{body}")
        paths.append(path)
    return paths


def test_grade_scores_crystalbleu_against_the_runs_corpus(tmp_path):
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE)
    subs = _submissions(tmp_path, 24)
    out = tmp_path / "out"
    code = main(["grade", "-r", str(ref), *map(str, subs), "-o", str(out), "--metrics", "codebleu,crystalbleu",
                 "--no-daemon", "--quiet"])
    assert code == 0
    rows = json.loads((out / "grade.json").read_text())["submissions"]
    assert len(rows) == 24 and all(r["crystalbleu"] is not None for r in rows)
    texts = list(dict.fromkeys([p.read_text() for p in subs] + [REFERENCE]))
    ignored = ignored_ngrams([code_tokens(t, "python") for t in texts])
    first = next(r for r in rows if r["id"].endswith("sub01.py"))
    want = sentence_crystalbleu([code_tokens(REFERENCE, "python")], code_tokens(subs[1].read_text(), "python"),
                                ignored.ngrams)
    assert abs(first["crystalbleu"] - want) < 1e-12
    assert f"|corpus:{len(texts)}|" in first["crystalbleu_signature"]
    assert "crystalbleu" in (out / "grade.csv").read_text().splitlines()[0]


def test_a_small_run_gets_one_clear_line_and_score_refuses(tmp_path, capsys):
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE)
    subs = _submissions(tmp_path, 3)
    out = tmp_path / "out"
    main(["grade", "-r", str(ref), *map(str, subs), "-o", str(out), "--metrics", "codebleu,crystalbleu",
          "--no-daemon", "--quiet"])
    rows = json.loads((out / "grade.json").read_text())["submissions"]
    assert all(r["crystalbleu"] is None and any("at least 20 texts" in e for e in r["errors"]) for r in rows)
    assert main(["score", str(ref), str(subs[0]), "--metrics", "crystalbleu", "--no-daemon"]) == 2
    assert "use refscore grade" in capsys.readouterr().err


def test_a_rerun_with_other_fields_rescores_with_crystalbleu(tmp_path):
    """``--fields`` decides which texts are candidate and reference: with CrystalBLEU too, a
    rerun that swaps them must not take the first run's rows from the parts."""
    subs = _submissions(tmp_path, 24)
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps({"hyp": p.read_text(), "ref": REFERENCE}) + "\n" for p in subs))
    out = tmp_path / "out"

    def grade(fields: str) -> list[dict]:
        code = main(["grade", "--jsonl", str(data), "--fields", fields, "--lang", "python", "-o", str(out),
                     "--metrics", "codebleu,crystalbleu", "--no-daemon", "--quiet"])
        assert code == 0
        return json.loads((out / "grade.json").read_text())["submissions"]

    forward = grade("candidate=hyp,reference=ref")
    swapped = grade("candidate=ref,reference=hyp")
    assert not any(r["cached"] for r in swapped)
    assert [r["codebleu_native"] for r in swapped] != [r["codebleu_native"] for r in forward]


def test_a_crystalbleu_error_neither_hides_why_refscore_is_missing_nor_fails_the_threshold(tmp_path, capsys):
    """A run too small for CrystalBLEU has its one error line per submission; the other metrics
    are scored as before: a row the combined number does not apply to (a context) still says
    why in its warnings, and ``--fail-under`` still reads its BERT F3 instead of "not scored"."""
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE)
    copy = tmp_path / "copy.py"
    copy.write_text(REFERENCE)
    out = tmp_path / "out"
    code = main(["grade", "-r", str(ref), str(copy), "--context", "sum a list", "-o", str(out), "--metrics",
                 "codebleu,codebertscore,crystalbleu", "--fail-under", "0.1", "--no-daemon", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    row = json.loads((out / "grade.json").read_text())["submissions"][0]
    assert row["codebertscore_f3"] is not None and any("at least 20 texts" in e for e in row["errors"])
    assert any(w.startswith("no RefScore:") and "context" in w for w in row["warnings"])
    assert "no combined RefScore number" in err


def test_a_rerun_marks_rows_with_a_crystalbleu_error_as_cached(tmp_path):
    """A rerun takes every row of a small run from the parts ("3 from earlier runs", settings'
    from_cache 3), so their ``cached`` cells say so, although each carries CrystalBLEU's error."""
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE)
    subs = _submissions(tmp_path, 3)
    out = tmp_path / "out"
    args = ["grade", "-r", str(ref), *map(str, subs), "-o", str(out), "--metrics", "codebleu,crystalbleu",
            "--no-daemon", "--quiet"]
    main(args)
    main(args)
    data = json.loads((out / "grade.json").read_text())
    assert data["settings"]["from_cache"] == 3 and data["settings"]["scored_now"] == 0
    assert [r["cached"] for r in data["submissions"]] == [True, True, True]
