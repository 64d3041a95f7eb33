"""Long lines with a non-ASCII character (minified JavaScript, a data line with one 'é'):
offsets and positions are found in time proportional to the text, not to the line length at each
call. The converters checkpoint long lines; the answers equal the plain per-call computation."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from refscore.analysis.positions import LinePositions, utf16_units
from refscore.analysis.text import OffsetMap
from refscore.engines import open_scorer
from refscore.scoring.report import ScoreRequest

TEXT = st.lists(st.tuples(st.sampled_from("aé😀\n\r x"), st.integers(1, 700)), max_size=6).map(
    lambda parts: "".join(ch * n for ch, n in parts))
UNITS = {"utf-16": utf16_units, "utf-8": lambda s: len(s.encode("utf-8")), "utf-32": len}


def plain_from_byte(text: str, offset: int) -> int:
    return len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_offset_map_equals_the_plain_computation(text: str) -> None:
    offsets = OffsetMap(text)
    data = text.replace("\r", "\n").encode("utf-8")  # tree-sitter reads lone CRs as LF (same bytes count)
    for offset in sorted({0, len(data), *range(0, len(data), 97), *range(1, len(data), 331)}):
        assert offsets.from_byte(offset) == plain_from_byte(text, offset), offset


def plain_offset(lines: LinePositions, line: int, column: int) -> int:
    """The per-call computation: walk the line from its start."""
    if line >= len(lines.starts):
        return len(lines.text)
    text, base, units = lines.line_text(line), lines.starts[line], 0
    for index, char in enumerate(text):
        if units >= column:
            return base + index
        units += lines.units(char)
    return base + len(text)


@settings(max_examples=150, deadline=None)
@given(TEXT, st.sampled_from(sorted(UNITS)))
def test_line_positions_equal_the_plain_computation(text: str, unit: str) -> None:
    units = UNITS[unit]
    lines = LinePositions(text, units)
    for offset in range(0, len(text) + 1, 7):
        line, column = lines.position(offset)
        assert column == units(text[lines.starts[line]:offset]), (offset, unit)
    for line in range(lines.line_count + 1):
        for column in range(0, units(lines.line_text(line)) + 9, 11):
            assert lines.offset(line, column) == plain_offset(lines, line, column), (line, column, unit)


def test_a_long_non_ascii_line_is_explained_in_linear_time() -> None:
    """CodeBLEU with explanations of one-line minified code: twice the text, about twice the time
    (each explanation's offset re-encoded its whole line: 10 s for 145,000 characters)."""
    scorer = open_scorer("local")

    def seconds(count: int) -> float:
        best = float("inf")
        for run in range(3):  # new texts each time: analyses are cached by content
            ref = "".join(f"function f{i}(a){{return a*{i + run}+'é';}}" for i in range(count))
            request = ScoreRequest(candidate=ref.replace("*", "+"), references=(ref,), language="javascript",
                                   metrics=("codebleu",), explain=True)
            start = time.process_time()
            scorer.score(request)
            best = min(best, time.process_time() - start)
        return best

    seconds(200)  # warm up the grammar
    small, large = seconds(1500), seconds(3000)
    assert large < 3.0 * small, (small, large)
