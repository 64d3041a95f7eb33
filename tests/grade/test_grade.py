"""`refscore grade` end to end on a generated class: real files, the real Scorer, real reports."""

from __future__ import annotations

import csv
import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from refscore.cli import main  # noqa: E402
from refscore.grade.mapping import load_mapping  # noqa: E402
from refscore import engines  # noqa: E402
from refscore.scoring.report import ScoreRequest  # noqa: E402
from refscore.scoring.scorer import LocalScorer  # noqa: E402
from tests.data.grade.classgen import PY_REFERENCE, make_class  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade the generated class once with CodeBLEU; keep the outputs."""
    root = tmp_path_factory.mktemp("class")
    gen = make_class(root)
    out = root / "out"
    code = main(["grade", "--mapping", str(gen.mapping), "--metrics", "codebleu", "-o", str(out), "-q"])
    with open(out / "grade.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    data = json.loads((out / "grade.json").read_text(encoding="utf-8"))
    html = (out / "grade.html").read_text(encoding="utf-8")
    return gen, code, rows, data, html


def test_class_is_big_enough_and_mixed(graded):
    gen, *_ = graded
    assert len(gen.expected) >= 30
    assert any(k.startswith("running_max/") for k in gen.scored)
    assert any(k.startswith("sum_even/") for k in gen.scored)
    assert len(gen.errors) >= 5


def test_csv_has_every_submission_with_scores_or_errors(graded):
    gen, code, rows, _, _ = graded
    assert code == 0
    assert sorted(r["id"] for r in rows) == sorted(gen.expected)
    for row in rows:
        kind = gen.expected[row["id"]]
        if kind.startswith("error:"):
            assert kind[6:].lower() in row["errors"].lower(), row
            assert row["codebleu_native"] == ""
        else:
            assert row["errors"] == "", row
            assert 0.0 <= float(row["codebleu_native"]) <= 1.0
            for component in ("ngram_match", "weighted_ngram_match", "syntax_match"):
                assert 0.0 <= float(row[component]) <= 1.0
            assert row["codebleu_signature"].startswith("codebleu|lang:")
        if kind == "warn":
            assert "syntax error near line" in row["warnings"]
    languages = {r["id"].split("/")[0]: r["language"] for r in rows if not r["errors"]}
    assert languages == {"running_max": "python", "sum_even": "java"}


def test_scores_rank_a_copy_first_and_match_the_pipeline(graded):
    gen, _, rows, _, _ = graded
    by_id = {r["id"]: r for r in rows}
    for problem in ("running_max", "sum_even"):
        scored = [r for r in rows if r["id"].startswith(problem) and r["codebleu_native"]]
        best = max(scored, key=lambda r: float(r["codebleu_native"]))
        assert gen.expected[best["id"]] == "copy"
        assert float(best["codebleu_native"]) == pytest.approx(1.0)
    # same numbers as asking the Scorer directly (one pipeline, no second implementation)
    text = (gen.root / "python" / "s05_index.py").read_text()
    report = LocalScorer().score(ScoreRequest(text, (PY_REFERENCE,), "python", metrics=("codebleu",)))
    row = by_id["running_max/python/s05_index.py"]
    assert float(row["codebleu_native"]) == pytest.approx(report.codebleu.score, abs=1e-6)
    assert float(row["syntax_match"]) == pytest.approx(report.codebleu.component("syntax_match").score, abs=1e-6)


def test_json_report(graded):
    gen, _, rows, data, _ = graded
    assert data["settings"]["metrics"] == ["codebleu"]
    assert [s["id"] for s in data["submissions"]] == [r["id"] for r in rows]
    assert data["summary"]["submissions"] == len(gen.expected)
    assert data["summary"]["with_errors"] == len(gen.errors)
    assert data["summary"]["metrics"]["codebleu_native"]["n"] == len(gen.scored)
    for sub, row in zip(data["submissions"], rows):
        assert isinstance(sub["errors"], list)
        if row["codebleu_native"]:
            assert sub["codebleu_native"] == pytest.approx(float(row["codebleu_native"]), abs=1e-6)


class _Page(HTMLParser):
    """Collects table rows, detail sections, attributes that could reach the network, svgs."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[str] = []
        self.details: list[str] = []
        self.urls: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self.svgs = 0
        self.headers: list[str] = []
        self._in_th = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        attrs = dict(attrs)
        if tag == "tr" and "data-id" in attrs:
            self.rows.append(attrs["data-id"])
        if tag == "details":
            self.details.append(attrs.get("id", ""))
        if tag == "svg":
            self.svgs += 1
        self._in_th = tag == "th"
        for name in ("src", "href", "action", "srcset", "data", "poster", "xlink:href"):
            if name in attrs and not str(attrs[name]).startswith("#"):
                self.urls.append((tag, name, attrs[name]))

    def handle_data(self, data):
        if self._in_th:
            self.headers.append(data)
            self._in_th = False


def test_html_report_is_complete_and_self_contained(graded):
    gen, _, _, _, html = graded
    page = _Page()
    page.feed(html)
    assert sorted(page.rows) == sorted(gen.expected)
    assert len(page.details) == len(gen.expected)
    assert page.svgs >= 5  # CodeBLEU and its four components
    assert {"CodeBLEU", "syntax", "dataflow", "Notes"} <= set(page.headers)
    assert page.urls == []
    assert not ({"link", "iframe", "img", "object", "embed"} & page.tags)
    lowered = html.lower()
    for needle in ("http:", "https:", "url(", "@import", "//cdn"):
        assert needle not in lowered
    assert "<script>" in html and "sorted-asc" in html
    for message in gen.errors.values():
        assert message.lower() in lowered
    # missing parts of the reference are marked for an imperfect submission
    assert 'class="miss"' in html


def test_interrupted_run_writes_its_reports_and_resumes_from_the_parts(tmp_path, monkeypatch):
    gen = make_class(tmp_path / "class")
    cache = tmp_path / "parts"

    class StopsAfterTwoBatches:
        """The real scorer, with Ctrl-C arriving during the third batch."""

        def __init__(self) -> None:
            self.inner, self.calls = LocalScorer(), 0

        def score(self, request):
            return self.inner.score(request)

        def score_many(self, requests):
            self.calls += 1
            if self.calls == 3:
                raise KeyboardInterrupt
            return self.inner.score_many(requests)

        def close(self) -> None:
            pass

    out = tmp_path / "out"
    args = ["grade", "--mapping", str(gen.mapping), "--metrics", "codebleu", "--csv", str(out / "r.csv"),
            "--json", str(out / "r.json"), "--cache", str(cache), "--batch-size", "4", "-q"]
    monkeypatch.setattr(engines, "open_scorer", lambda *a, **k: StopsAfterTwoBatches())
    assert main(args) == 130
    first = json.loads((out / "r.json").read_text())
    unscorable = len(first["submissions"]) - len(gen.scored)
    assert first["settings"]["interrupted"] is True and first["settings"]["scored_now"] == unscorable + 8
    stopped = [s for s in first["submissions"] if any("interrupted" in e for e in s["errors"])]
    assert len(stopped) == len(gen.scored) - 8 and all(s["codebleu_native"] is None for s in stopped)
    monkeypatch.undo()

    assert main(args) == 0
    data = json.loads((out / "r.json").read_text())
    assert data["settings"]["from_cache"] == unscorable + 8
    assert data["settings"]["scored_now"] == len(gen.scored) - 8
    assert sum(1 for s in data["submissions"] if s["cached"]) == 8
    assert main(["grade", "--mapping", str(gen.mapping), "--metrics", "codebleu", "--json", str(out / "f.json"),
                 "--no-cache", "-q"]) == 0
    fresh = json.loads((out / "f.json").read_text())["submissions"]
    assert [{k: v for k, v in s.items() if k != "cached"} for s in data["submissions"]] == \
        [{k: v for k, v in s.items() if k != "cached"} for s in fresh]

    # other settings do not reuse the scored parts
    assert main(["grade", "--mapping", str(gen.mapping), "--metrics", "codebleu", "--weights", "0.1,0.1,0.4,0.4",
                 "--json", str(out / "w.json"), "--cache", str(cache), "-q"]) == 0
    assert json.loads((out / "w.json").read_text())["settings"]["from_cache"] == 0


def test_the_cache_key_does_not_depend_on_the_order_of_metrics(tmp_path):
    """``--metrics codebleu,chrf`` and ``--metrics chrf,codebleu`` score the same: a rerun in the
    other order scored everything again. The default order keeps the key it had."""
    from refscore.grade.settings import GradeSettings

    gen = make_class(tmp_path / "class")
    subs = [str(gen.root / "python" / f) for f in ("copy.py", "s01_loop.py")]
    cache = tmp_path / "parts"
    base = ["grade", "-r", str(gen.root / "refs" / "running_max.py"), *subs, "--cache", str(cache), "-q"]
    assert main([*base, "--metrics", "codebleu,chrf", "--json", str(tmp_path / "a.json")]) == 0
    assert main([*base, "--metrics", "chrf,codebleu", "--json", str(tmp_path / "b.json")]) == 0
    first, again = (json.loads((tmp_path / f"{n}.json").read_text()) for n in "ab")
    assert again["settings"]["from_cache"] == 2 and again["settings"]["scored_now"] == 0
    assert [{k: v for k, v in s.items() if k != "cached"} for s in again["submissions"]] == \
        [{k: v for k, v in s.items() if k != "cached"} for s in first["submissions"]]
    assert GradeSettings(metrics=("codebertscore", "codebleu")).cache_tag() == GradeSettings(metrics=("codebleu", "codebertscore")).cache_tag()
    assert '"metrics": ["codebleu", "codebertscore"]' in GradeSettings().cache_tag()


def test_fail_under_exit_codes(tmp_path, capsys):
    gen = make_class(tmp_path / "class")
    good = [str(gen.root / "python" / f) for f in ("copy.py", "s01_loop.py", "s09_accumulate.py")]
    ref = str(gen.root / "refs" / "running_max.py")
    base = ["grade", "-r", ref, *good, "--metrics", "codebleu", "--no-cache", "-q", "--json", str(tmp_path / "g.json")]
    assert main(base) == 0
    scores = [s["codebleu_native"] for s in json.loads((tmp_path / "g.json").read_text())["submissions"]]
    assert main([*base, "--fail-under", f"{min(scores) - 0.01:.4f}"]) == 0
    assert main([*base, "--fail-under", f"{min(scores) + 0.01:.4f}"]) == 1
    err = capsys.readouterr().err
    assert "below CodeBLEU" in err and "s09_accumulate.py" in err
    # a submission that could not be scored fails the threshold too
    broken = ["grade", "-r", ref, *good, str(gen.root / "python" / "binary.py"), *base[3 + len(good):]]
    capsys.readouterr()
    assert main([*broken, "--fail-under", "0"]) == 1
    # the verdict says why it was not scored, so CI's log is enough to act on
    assert "binary.py: not scored: looks binary" in capsys.readouterr().err
    # the threshold may use one component instead
    assert main([*base, "--fail-under", "0.99", "--fail-metric", "syntax_match"]) == 1


def test_usage_and_input_errors_are_one_line(tmp_path, capsys):
    gen = make_class(tmp_path / "class")
    assert main(["grade", str(gen.root / "python" / "copy.py")]) == 2
    assert "--reference" in capsys.readouterr().err
    assert main(["grade", "-r", str(tmp_path / "missing.py"), str(gen.root / "python")]) == 3
    assert main(["grade", "-r", str(gen.root / "refs" / "running_max.py"), "--lang", "cobol",
                 str(gen.root / "python")]) == 4
    assert main(["grade", "--jsonl", str(tmp_path / "none.jsonl")]) == 3
    assert main(["grade", "--mapping", str(gen.mapping), "--metrics", "bleu"]) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("[[problem]\nname=")
    assert main(["grade", "--mapping", str(bad)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "not valid TOML" in err


def test_an_unknown_lang_stops_every_kind_of_input_before_scoring(tmp_path, capsys):
    """docs/grade.md: an unknown `--lang` stops the run before scoring (exit 4), whatever the
    input: it is the fallback for JSONL rows and mapping problems too, so a typo (`--lang pyhton`)
    must not become an error row per submission (exit 3) or be ignored where the rows name theirs."""
    gen = make_class(tmp_path / "class")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"candidate": "x = 1\n", "reference": "x = 1\n", "language": "python"}) + "\n"
                    + json.dumps({"candidate": "y = 2\n", "reference": "y = 2\n"}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    for inputs in (["--jsonl", str(rows)], ["--mapping", str(gen.mapping)]):
        capsys.readouterr()
        assert main(["grade", *inputs, "--lang", "pyhton", "--metrics", "codebleu", "-o", str(out), "-q"]) == 4
        err = capsys.readouterr().err
        assert "unknown language 'pyhton'" in err and len(err.strip().splitlines()) == 1, err
        assert not out.exists()  # stopped before anything was scored or written


def test_files_folders_and_globs_on_the_command_line(tmp_path, capsys):
    gen = make_class(tmp_path / "class")
    ref = str(gen.root / "refs" / "running_max.py")
    code = main(["grade", "-r", ref, str(gen.root / "python" / "s0*_loop.py"), str(gen.root / "python"),
                 "--pattern", "*.py", "--metrics", "codebleu", "--no-cache", "-q"])
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    listed = [line.split()[0] for line in out if line.startswith(str(gen.root))]
    py_files = sorted(p.name for p in (gen.root / "python").glob("*.py"))
    # the glob's matches, then the folder's other .py files: each file graded once
    assert len(listed) == len(py_files) == len(set(listed))
    assert [Path(x).name for x in listed[:4]] == ["s01_loop.py", "s02_loop.py", "s03_loop.py", "s04_loop.py"]
    assert not any(x.endswith("#2") for x in listed)
    assert not any(line.startswith(("graded", "wrote")) for line in out)  # -q: the rows only (issue 28 #13)


def test_jsonl_input_with_bad_lines(tmp_path):
    good = {"id": "ok", "candidate": "def f(a):\n    return a + 1\n", "reference": "def f(x):\n    return x + 1\n",
            "language": "python", "context": "add one"}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "id": "nolang", "language": None}),
             json.dumps({**good, "id": "cobol", "language": "cobol"}), json.dumps({**good, "id": "num", "candidate": 3}),
             json.dumps({**good, "id": "blank", "candidate": "   "}), "",
             json.dumps({**good, "id": "two", "reference": [good["reference"], good["candidate"]]})]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    assert main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "--json", str(out), "-q"]) == 0
    subs = {s["id"]: s for s in json.loads(out.read_text())["submissions"]}
    assert set(subs) == {"ok", "runs.jsonl:2", "nolang", "cobol", "num", "blank", "two"}
    assert subs["ok"]["codebleu_native"] is not None and not subs["ok"]["errors"]
    assert subs["two"]["codebleu_native"] > subs["ok"]["codebleu_native"]  # the candidate is one of its references
    assert "not valid JSON" in subs["runs.jsonl:2"]["errors"][0]
    assert "language" in subs["nolang"]["errors"][0]
    assert "cobol" in subs["cobol"]["errors"][0]
    assert "candidate" in subs["num"]["errors"][0]
    assert "empty" in subs["blank"]["errors"][0]


def test_csv_mapping_matches_toml_mapping(tmp_path):
    gen = make_class(tmp_path / "class")
    mapping = gen.root / "class.csv"
    with open(mapping, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["name", "reference", "submissions", "context", "per_folder", "pattern"])
        writer.writerow(["running_max", "refs/running_max.py", "python/*", "Running max.", "", ""])
        writer.writerow(["sum_even", "refs/Solution.java", "java", "", "yes", "*.java"])
    from_csv = [(i.id, i.error is None, i.language) for i in load_mapping(mapping).items]
    from_toml = [(i.id, i.error is None, i.language) for i in load_mapping(gen.mapping).items]
    assert from_csv == from_toml


def test_daemon_flag_goes_through_open_scorer_and_falls_back(tmp_path, monkeypatch):
    """--daemon asks refscore.service for the Scorer; with the daemon disabled it falls back to
    the in-process scorer and the numbers are the same."""
    service = pytest.importorskip("refscore.service")
    monkeypatch.setenv(getattr(service, "NO_DAEMON_ENV", "REFSCORE_NO_DAEMON"), "1")
    gen = make_class(tmp_path / "class")
    files = [str(gen.root / "python" / f) for f in ("s01_loop.py", "s05_index.py")]
    ref = str(gen.root / "refs" / "running_max.py")
    common = ["--metrics", "codebleu", "--no-cache", "-q"]
    assert main(["grade", "-r", ref, *files, *common, "--daemon", "--json", str(tmp_path / "d.json")]) == 0
    assert main(["grade", "-r", ref, *files, *common, "--json", str(tmp_path / "l.json")]) == 0
    via_daemon = [s["codebleu_native"] for s in json.loads((tmp_path / "d.json").read_text())["submissions"]]
    local = [s["codebleu_native"] for s in json.loads((tmp_path / "l.json").read_text())["submissions"]]
    assert via_daemon == local and all(v is not None for v in local)


def test_codebleu_rule_compat_in_reports_and_cache(tmp_path):
    """``--codebleu-rule compat`` grades with the package's numbers, says so in the JSON report,
    and does not reuse what a native run cached."""
    from refscore.compat import calc_codebleu

    rows = [{"id": f"s{i}", "candidate": cand, "reference": "def f(x):\n    y = x + 1\n    return y\n",
             "language": "python"}
            for i, cand in enumerate(["def f():\n    return 1\n", "def f(x):\n    y = x + 1\n    return y\n"])]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    native_out, compat_out = tmp_path / "native.json", tmp_path / "compat.json"
    cache = tmp_path / "shared.parts"
    assert main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "--json", str(native_out),
                 "--cache", str(cache), "-q"]) == 0
    assert main(["grade", "--jsonl", str(path), "--metrics", "codebleu", "--json", str(compat_out),
                 "--cache", str(cache), "--codebleu-rule", "compat", "-q"]) == 0
    native = json.loads(native_out.read_text())
    compat = json.loads(compat_out.read_text())
    assert compat["settings"]["codebleu_rule"] == "compat" and native["settings"]["codebleu_rule"] == "native"
    by_id = {s["id"]: s for s in compat["submissions"]}
    for row in rows:
        expected = calc_codebleu([row["reference"]], [row["candidate"]], "python")["codebleu"]
        assert by_id[row["id"]]["codebleu"] == pytest.approx(expected, abs=1e-12)
    assert {s["id"]: s["codebleu_native"] for s in native["submissions"]} != {k: v["codebleu"] for k, v in by_id.items()}
