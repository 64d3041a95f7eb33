"""Unit tests of the grader's parts: block keys, progress text, part files, rows, heat map, histogram."""

from __future__ import annotations

import io
import os
from dataclasses import replace

import pytest
from refscore.grade.blocks import item_blocks
from refscore.grade.heatmap import (
    BUCKET_COLORS,
    Heat,
    Missing,
    missing_color,
    missing_heat,
    render_pane,
    token_heat,
)
from refscore.grade.histogram import bin_counts, histogram_svg
from refscore.grade.items import GradeItem
from refscore.grade.settings import GradeSettings
from refscore.grade.parts import PartStore
from refscore.grade.plan import part_key
from refscore.grade.progress import Progress, format_duration
from refscore.grade.rows import GradeResult, result_row, threshold_failures
from refscore.grade.stream_stats import RowStats
from refscore.metrics.codebertscore_result import BertScore, TokenAlignment
from refscore.scoring.report import ScoreReport
from refscore.vocabulary import HEAT_BUCKETS, heat_bucket

pytestmark = pytest.mark.timeout(60)


def _item(id_: str, text: str = "x = 1\n") -> GradeItem:
    return GradeItem(id_, text, ("x = 2\n",), "python")


def _key(*items: GradeItem, tag: str = "s") -> str:
    spec, _ = next(item_blocks(list(items), 10, ""))
    return part_key(spec, tag)


def test_block_keys_depend_on_content_and_settings():
    a, b = _item("a"), _item("a")
    assert _key(a) == _key(b) and _key(a) != _key(a, tag="t")
    b.context = "task"
    assert _key(a) != _key(b) and _key(a) != _key(_item("a", "x = 3\n"))


def test_a_new_fit_of_the_combined_number_is_a_new_cache_key(monkeypatch):
    from refscore.scoring import headline

    both = GradeSettings(metrics=("codebleu", "codebertscore"))
    monkeypatch.setattr(headline, "headline_model", lambda: {"digest": "fit-one"})
    first = both.cache_tag()
    assert first != GradeSettings(metrics=("codebleu",)).cache_tag()
    monkeypatch.setattr(headline, "headline_model", lambda: {"digest": "fit-two"})
    assert both.cache_tag() != first
    monkeypatch.setattr(headline, "headline_model", lambda: None)
    assert "refscore" not in both.cache_tag()


def test_progress_lines_and_bar():
    now = [0.0]
    out = io.StringIO()
    progress = Progress(10, stream=out, tty=False, clock=lambda: now[0])
    progress.update(cached=2)
    now[0] = 4.0
    progress.update(scored=4)
    text = out.getvalue().splitlines()
    assert text[0].startswith("grade: 2/10 (20%)") and "ETA ?" in text[0] and "2 from cache" in text[0]
    assert text[1].startswith("grade: 6/10 (60%) 1.0 items/s ETA 4s")
    bar = io.StringIO()
    progress = Progress(4, stream=bar, tty=True, clock=lambda: now[0])
    progress.update(scored=2)
    progress.close()
    assert bar.getvalue().startswith("\r[" + "#" * 14 + "." * 14 + "] 2/4") and bar.getvalue().endswith("\n")
    assert format_duration(3725) == "1h02m" and format_duration(65) == "1m05s"


def test_a_part_survives_a_torn_last_line(tmp_path):
    store = PartStore(tmp_path)
    path = store.write(0, "ab" * 20, [(0, {"id": "a", "errors": []}), (1, {"id": "b", "errors": []})])
    with open(path, "a") as fh:
        fh.write('{"offset": 2, "row": {"langu')
    assert sorted(PartStore(tmp_path).rows(0, "ab" * 20)) == [0, 1]


def test_a_part_edited_after_the_store_vouched_for_it_is_checked_again(tmp_path):
    store, key = PartStore(tmp_path), "cd" * 20
    path = store.write(0, key, [(0, {"id": "a", "score": 0.25}), (1, {"id": "b", "score": 0.5})])
    assert store.rows(0, key)[0]["score"] == 0.25  # written by this store: read without checks
    stamp = path.stat().st_mtime_ns
    path.write_text(path.read_text().replace("0.25", "0.99"))  # a hand edit, same size...
    os.utime(path, ns=(stamp, stamp + 10**9))  # ...a second later (the clock may not tick in a test)
    assert sorted(store.rows(0, key)) == [1] and len(store.notes) == 1


def test_rows_read_the_typed_codebertscore_rebuilt_from_its_summary():
    summary_form = {"precision": 0.8, "recall": 0.6, "f1": 0.6857, "f3": 0.6154, "model": "m", "layer": 6,
                    "signature": "cbs|model:m"}
    bert = BertScore.from_dict(summary_form)
    assert bert.candidate_tokens == () and bert.to_dict() == {**summary_form, "device": ""}
    result = GradeResult(_item("a"), ScoreReport("python", codebertscore=bert))
    row = result_row(result)
    assert row["codebertscore_f1"] == 0.6857 and row["codebertscore_model"] == "m"
    assert row["codebleu_native"] is None and row["errors"] == []
    nan = GradeResult(_item("b"), ScoreReport("python", codebertscore=replace(bert, f1=float("nan"))))
    assert result_row(nan)["codebertscore_f1"] is None
    rows = [row, result_row(nan)]
    stats = RowStats()
    for r in rows:
        stats.add(r)
    assert stats.summary()["metrics"]["codebertscore_f1"]["n"] == 1
    assert [r["id"] for r in threshold_failures(rows, "codebertscore_f1", 0.5)] == ["b"]


def test_render_pane_escapes_code_and_marks_missing_parts():
    text = "if a < b:\n    return '<b>'\n"
    html = render_pane(text, [Heat(0, 2, "#e0505055", "similarity 0.1")], [Missing(10, 16, "ngram")])
    assert "<b>" not in html.replace("<b>'", "") and "&lt;b&gt;" in html
    assert 'title="similarity 0.1"' in html and "background:#e0505055" in html
    assert 'class="miss"' in html and "missing from the candidate: ngram" in html
    # every character of the code is still there, in order
    import re
    from html import unescape
    assert unescape(re.sub(r"<[^>]+>", "", html)) == text


def test_token_heat_uses_the_vocabularys_buckets_and_missing_heat_deepens():
    """Token colours are the vocabulary's three heat buckets around the weak-token threshold (the
    editor's and ``score --heat``'s): 0.30 / 0.45 / 0.60 edges, nothing above the top one."""
    sims = [0.1, 0.2999, 0.3, 0.4499, 0.45, 0.5999, 0.6, 0.95]
    text = "x " * len(sims)
    tokens = [TokenAlignment("x", 2 * i, 2 * i + 1, s) for i, s in enumerate(sims)]
    tokens.append(TokenAlignment("?", 50, 60, 0.1))  # out-of-range span dropped
    heat = token_heat(tokens, text)
    assert [h.start // 2 for h in heat] == [i for i, s in enumerate(sims) if heat_bucket(s) is not None] == \
        list(range(6))
    assert [h.background for h in heat] == [BUCKET_COLORS[heat_bucket(s)] for s in sims[:6]]
    assert set(BUCKET_COLORS) == set(HEAT_BUCKETS) and len(set(BUCKET_COLORS.values())) == 3
    assert [h.background for h in token_heat(tokens, text, threshold=0.9)][-1] == BUCKET_COLORS["fair"]
    assert "best match 'def'" in token_heat([TokenAlignment("def", 0, 3, 0.2, match_text="def")], "def")[0].title
    assert "best match" not in token_heat([TokenAlignment("def", 0, 3, 0.2, match_text="def")], "def",
                                          matches=False)[0].title
    spans = missing_heat([Missing(0, 4, "a"), Missing(2, 6, "b")], 8)
    assert [(h.start, h.end) for h in spans] == [(0, 2), (2, 4), (4, 6)]
    assert spans[1].background == missing_color(2) != spans[0].background == missing_color(1)


def test_histogram_bins_and_svg():
    assert bin_counts([0.0, 0.05, 0.5, 1.0, 1.2, -1]) == [3, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    svg = histogram_svg("CodeBLEU <x>", [0.1, 0.2, 0.95])
    assert svg.startswith("<svg") and "CodeBLEU &lt;x&gt; (n=3, mean 0.417)" in svg
    assert svg.count("<rect") == 10 and "http" not in svg
    assert "(n=0)" in histogram_svg("empty", [])
    # a heading too long for the chart's width: the title on its own line, then n and the mean
    long = histogram_svg("weighted n-gram", [0.1] * 2000)
    assert '>weighted n-gram</text><text x="16" y="25" class="ht">(n=2,000, mean 0.100)</text>' in long


def test_rankings_keep_earlier_rows_first_on_ties_and_histogram_edges():
    stats = RowStats("codebleu", keep=3)
    values = [0.5, 0.2, 0.2, 0.9, 0.9, 0.2, 1.0, 0.0, 0.9]
    for n, value in enumerate(values):
        stats.add({"id": f"r{n}", "codebleu": value})
    assert [r["id"] for r in stats.lowest()] == ["r7", "r1", "r2"]
    assert [r["id"] for r in stats.highest()] == ["r6", "r3", "r4"]
    column = stats.columns["codebleu"]
    assert (column.low, column.high, column.n) == (0.0, 1.0, 9)
    assert column.bins[0] == 1 and column.bins[9] == 4  # 1.0 falls in the last bin


def test_a_small_run_reads_its_inputs_once(tmp_path):
    from refscore.grade.plan import Sources

    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "candidate": "x = 1", "reference": "x = 2", "language": "python"}\n\n'
                    '{"id": "b", "candidate": "y = 1", "reference": "y = 2", "language": "python"}\n',
                    encoding="utf-8")
    sources = Sources([], [path], None, block_lines=1)
    sources.remember = True
    first = [(spec.index, [(o, i.id) for o, i in items]) for spec, items in sources.scan()]
    path.unlink()  # pass two is served from what pass one read
    assert [(spec.index, [(o, i.id) for o, i in items]) for spec, items in sources.scan()] == first
    assert [ids for _, ids in first if ids] == [[(0, "a")], [(0, "b")]]
    unkept = Sources([], [tmp_path / "gone.jsonl"], None, block_lines=1)
    with pytest.raises(Exception):
        list(unkept.scan())  # without ``remember`` every scan reads the files


def test_terminal_lines_of_scored_and_error_rows_line_up():
    """Without a report each submission is a line: an error row's ``[...]`` starts in the same
    column as a scored row's scores (it was two spaces further right)."""
    from refscore.grade.terminal import row_line

    scored = row_line({"id": "a.py", "codebleu": 0.5, "errors": []}, 6)
    broken = row_line({"id": "bin.py", "errors": ["bin.py: looks binary"]}, 6)
    assert scored.index("CodeBLEU") == broken.index("[") == 8


def test_terminal_lines_mark_warnings_as_the_html_notes_do():
    """A row line says each note's kind as the HTML Notes column does (``Error: ``, ``Warning: ``):
    a Trojan Source warning is shown, short (up to its first colon), beside the parse error."""
    from refscore.bidi import bidi_warning, find_bidi
    from refscore.grade.block_score import not_parsing_warning
    from refscore.grade.terminal import row_line

    bidi = bidi_warning(find_bidi("x = 1  # \u202e\n"))
    assert bidi and ": " in bidi
    line = row_line({"id": "t.py", "codebleu": 0.5, "errors": [], "parse_error": "syntax error near line 3",
                     "warnings": [bidi, not_parsing_warning("syntax error near line 3")]}, 4)
    assert line.endswith(f"[Warning: {bidi.split(': ')[0]}; Warning: does not parse: syntax error near line 3]"), line
    broken = row_line({"id": "bin.py", "errors": ["bin.py: looks binary"], "warnings": []}, 6)
    assert broken.endswith("[Error: bin.py: looks binary]"), broken
    assert row_line({"id": "a.py", "codebleu": 1.0, "errors": [], "warnings": []}, 4).endswith("1.000")


def test_native_rows_kept_under_the_old_codebleu_name_are_not_read_back() -> None:
    """Rows kept before the native rule's CodeBLEU was named ``codebleu_native`` hold it as
    ``codebleu``: a native run's parts get a key of their own, the package rule's keep theirs."""
    native = GradeSettings(metrics=("codebleu",)).cache_tag()
    compat = GradeSettings(metrics=("codebleu",), codebleu_rule="compat").cache_tag()
    assert '"codebleu_column": "codebleu_native"' in native
    assert "codebleu_column" not in compat and '"codebleu_rule": "compat"' in compat
    assert "codebleu_column" not in GradeSettings(metrics=("codebertscore",)).cache_tag()
