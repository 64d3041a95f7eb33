"""What one submission may cost (issue 45, item 2): CodeBLEU holds about 0.8 KB per code token,
so a file under the 20 MiB read cap could take 10 GB. Over the budget (1,500,000 code tokens a
text, ``$REFSCORE_MAX_CODE_TOKENS``) a text is not scored: one error line, an error row in a
grading run; and a class zip that unpacks past 500 times its size is refused as a bomb."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.classroom import safe_zip
from refscore.scoring.budget import MAX_CODE_TOKENS, code_tokens

REF = "def total(nums):\n    result = 0\n    for n in nums:\n        result += n\n    return result\n"
REFSCORE = str(Path(sys.executable).with_name("refscore"))


def test_code_tokens_are_words_and_punctuation_marks() -> None:
    assert code_tokens("") == 0 and code_tokens("x = 1\n") == 3
    assert code_tokens("total_2 += nums[0]  # é\n") == 9  # total_2 + = nums [ 0 ] # é
    assert code_tokens(REF) == 20


def _limited(limit_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def test_a_huge_file_of_one_statement_lines_is_refused_in_one_line_within_1_gib(tmp_path: Path) -> None:
    """4 MB of ``x = 1``: 2,100,000 tokens. It took 2.5 GB and 147 s; under a 1 GiB limit it was a
    MemoryError traceback. Now: one line, exit 3, in the memory a small file needs."""
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "big.py").write_text("x = 1\n" * 700_000)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("REFSCORE_MAX_CODE_TOKENS", None)
    done = subprocess.run([REFSCORE, "score", str(tmp_path / "ref.py"), str(tmp_path / "big.py"), "--metrics",
                           "codebleu", "--no-daemon"], capture_output=True, text=True, env=env, timeout=300,
                          preexec_fn=_limited(1024 ** 3))
    assert done.returncode == 3, done.stderr
    line = f"over budget: the candidate has 2,100,000 code tokens; limit {MAX_CODE_TOKENS:,} (not scored)"
    assert line in done.stderr and "Traceback" not in done.stderr and "MemoryError" not in done.stderr


def test_an_over_budget_submission_is_an_error_row_and_the_class_is_graded(tmp_path: Path, monkeypatch,
                                                                           capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.py").write_text(REF.replace("result", "acc"))
    (subs / "bob.py").write_text("x = 1\n" * 2_000)  # 6,000 tokens
    monkeypatch.setenv("REFSCORE_MAX_CODE_TOKENS", "5000")
    out = tmp_path / "out" / "grade.json"
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(subs), "--metrics", "codebleu", "--no-cache", "-q",
                 "--json", str(out)])
    assert code == 0, capsys.readouterr().err
    rows = {Path(r["id"]).stem: r for r in json.loads(out.read_text())["submissions"]}
    assert rows["alice"]["codebleu_native"] > 0.5 and not rows["alice"]["errors"]
    assert rows["bob"]["errors"] == ["codebleu: over budget: the candidate has 6,000 code tokens; limit 5,000 "
                                     "(not scored)"]


def test_a_reference_over_budget_is_named(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF * 100)  # 2,000 tokens
    (tmp_path / "c.py").write_text(REF)
    monkeypatch.setenv("REFSCORE_MAX_CODE_TOKENS", "1500")
    code = main(["score", str(tmp_path / "ref.py"), str(tmp_path / "c.py"), "--metrics", "codebleu", "--no-daemon"])
    err = capsys.readouterr().err
    assert code == 3 and "the reference has 2,000 code tokens; limit 1,500" in err


def test_every_cpu_metric_that_reads_the_text_keeps_the_budget(tmp_path: Path, monkeypatch, capsys) -> None:
    pytest.importorskip("sacrebleu")
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "c.py").write_text("x = 1\n" * 1_000)  # 3,000 tokens
    monkeypatch.setenv("REFSCORE_MAX_CODE_TOKENS", "2000")
    out = tmp_path / "out.json"
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "c.py"), "--metrics", "codebleu,chrf,tsed",
                 "--no-cache", "-q", "--json", str(out)])
    row = json.loads(out.read_text())["submissions"][0]
    why = "over budget: the candidate has 3,000 code tokens; limit 2,000 (not scored)"
    assert row["errors"] == [f"{m}: {why}" for m in ("codebleu", "chrf", "tsed")], (code, capsys.readouterr().err)


def test_crystalbleu_keeps_the_budget_and_leaves_the_text_out_of_its_corpus(tmp_path: Path, monkeypatch) -> None:
    """CrystalBLEU, a corpus metric, read every text into its n-gram statistics whatever its size."""
    pytest.importorskip("crystalbleu")
    from refscore.scoring import pipeline
    from refscore.scoring.report import ScoreRequest

    monkeypatch.setenv("REFSCORE_MAX_CODE_TOKENS", "2000")
    huge = "x = 1\n" * 1_000  # 3,000 tokens
    requests = [ScoreRequest(REF.replace("result", f"name_{n}"), (REF,), "python", metrics=("crystalbleu",))
                for n in range(24)] + [ScoreRequest(huge, (REF,), "python", metrics=("crystalbleu",))]
    prepared = [pipeline.prepare(r) for r in requests]
    statistics = pipeline.corpus_statistics(prepared)
    seen: list[str] = []
    real = pipeline.over_budget
    monkeypatch.setattr(pipeline, "over_budget", lambda text, refs: seen.append(text) or real(text, refs))
    scores = [pipeline.corpus_metrics(p, statistics) for p in prepared]
    assert scores[-1].errors == ("crystalbleu: over budget: the candidate has 3,000 code tokens; limit 2,000 "
                                 "(not scored)",)
    assert all(s.crystalbleu is not None and not s.errors for s in scores[:-1]), scores[0]
    assert huge in seen  # checked before scoring
    ignored = statistics.ignored["python"]
    assert not isinstance(ignored, str) and ignored.documents == 25  # 24 candidates and the reference, not the huge one


def _class_zip(path: Path, files: int, size: int) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(files):
            archive.writestr(f"s{n}/sum.py", b"x = 1\n" * (size // 6))


def test_a_zip_that_unpacks_past_500_times_its_size_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    """12 files of ``x = 1`` lines, 680 to 1: under the 1 GiB total and the per-file cap, so it was
    read whole into memory and scored (2 GB, no report after 45 s)."""
    monkeypatch.setattr(safe_zip, "BOMB_MIN_BYTES", 4 * 1024 * 1024)  # the real floor is 64 MiB
    (tmp_path / "ref.py").write_text(REF)
    archive = tmp_path / "class.zip"
    _class_zip(archive, 12, 1024 * 1024)
    assert archive.stat().st_size * 500 < 12 * 1024 * 1024 < safe_zip.MAX_TOTAL_BYTES
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(archive), "--metrics", "codebleu", "--no-cache", "-q",
                 "--json", str(tmp_path / "out" / "grade.json")])
    err = capsys.readouterr().err
    assert code == 3 and "(over 500 times its size, past 4 MiB): a zip bomb? not read" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out" / "grade.json").exists()


def test_a_zip_of_ordinary_code_is_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(safe_zip, "BOMB_MIN_BYTES", 0)  # the ratio alone
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("alice", "bob"):
            z.writestr(f"{name}/sum.py", REF * 20)
    assert [e.name for e in safe_zip.read_zip(archive)] == ["alice/sum.py", "bob/sum.py"]


@pytest.mark.parametrize("packed, expected", [(1_000, 64 * 1024 * 1024), (1_000_000, 500_000_000),
                                              (10 ** 9, 1024 ** 3)])
def test_the_unpack_limit(packed: int, expected: int) -> None:
    assert safe_zip.unpack_limit(packed) == expected
