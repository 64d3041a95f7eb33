"""The difference finder: CodeBLEU's explanations placed on the candidate and one ranking of
candidate spans (real tree-sitter parses, real CodeBLEU; CodeBERTScore where marked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refscore.metrics.differences import Difference
from refscore.scoring.codebleu import score_codebleu
from refscore.scoring.differences import find_differences, placed_records
from refscore.scoring.report import ScoreReport

#: the VS Code end-to-end sample's reference (its candidate writes `total = value` on line 9)
REFERENCE = (Path(__file__).resolve().parents[2] / "client-vscode" / "e2e" / "workspace" / "totals.ref.py"
             ).read_text(encoding="utf-8")


def found(candidate: str, reference: str = REFERENCE, language: str = "python"):
    report = ScoreReport(language, codebleu=score_codebleu([reference], candidate, language))
    return find_differences(candidate, (reference,), report)


def test_identical_candidate_has_no_differences() -> None:
    assert found(REFERENCE).differences == ()
    renamed = REFERENCE.replace("total", "acc").replace("value", "item")
    assert found(renamed).differences == ()  # a consistent renaming is no difference


def test_accumulation_slip_is_first_and_names_plus_equals() -> None:
    candidate = REFERENCE.replace("total += value", "total = value")
    first = found(candidate).differences[0]
    assert first.range[0] == 5 and candidate[first.start:first.end] == "="
    assert "`+=`" in first.reason and first.reference_range[0] == 5
    assert REFERENCE[first.reference_start:first.reference_end] == "+="


def test_missing_statement_points_at_the_line_before_the_gap() -> None:
    candidate = REFERENCE.replace("        total += value\n", "")
    first = found(candidate).differences[0]
    assert first.kind == "missing" and first.range[0] == 4  # 'for value in values:'
    assert "total += value" in first.reason


def test_wrong_variable_under_a_renaming() -> None:
    candidate = (REFERENCE.replace("total", "acc").replace("value", "item")
                 .replace("if item > 0", "if acc > 0"))
    first = found(candidate).differences[0]
    assert first.range[0] == 6 and candidate[first.start:first.end] == "acc"
    assert "`value`" in first.reason and "`item`" in first.reason


def test_every_explanation_is_placed_or_said_absent() -> None:
    candidate = REFERENCE.replace("total += value", "total = value").replace(
        "        if value > 0:\n            result.append(value)\n", "")
    result = found(candidate)
    assert result.explanations
    hows = {p.how for p in result.explanations}
    assert hows <= {"aligned", "same kind", "variable", "nearest", "absent"}
    for placed in result.explanations:
        if placed.start is None:
            assert placed.how == "absent"
        else:
            assert 0 <= placed.start <= placed.end <= len(candidate)
    assert any(p.how == "absent" for p in result.explanations)  # the removed `if` has no counterpart
    records = placed_records(result, candidate)
    assert len(records) == len(result.explanations)
    assert all((r["candidate_range"] is None) == (r["candidate_start"] is None) for r in records)


def test_json_form_round_trips() -> None:
    first = found(REFERENCE.replace("total += value", "total = value")).differences[0]
    data = first.to_dict()
    assert set(data) >= {"range", "reference_range", "reason", "weight"}
    assert Difference.from_dict(data) == Difference.from_dict(Difference.from_dict(data).to_dict())
    assert data["range"]["start"] == {"line": 5, "character": first.range[1]}


@pytest.mark.parametrize("candidate, language", [
    ("", "python"), ("\x00\x01 garbage ((((", "python"), ("def f(:\n  return ]]", "python"),
    ("x" * 10, "python"), ("(" * 3000 + ")" * 3000, "python"), ("int main() { return 0; }", "cpp"),
])
def test_hostile_candidates_give_a_defined_result(candidate: str, language: str) -> None:
    result = found(candidate, language=language) if language == "python" else find_differences(
        candidate, ("int main() { return 1; }",), None, language)
    for item in result.differences:
        assert 0 <= item.start <= item.end <= len(candidate)


def test_huge_texts_are_said_not_ranked() -> None:
    huge = "x = 1\n" * 5000
    result = find_differences(huge, (REFERENCE,), None, "python")
    assert result.differences == () and "not ranked" in (result.note or "")


def test_unknown_language_is_a_note_not_an_error() -> None:
    result = find_differences("a b c", ("a b d",), None, "klingon")
    assert result.differences == ()


LINES = REFERENCE.splitlines()
EDITS = st.lists(st.tuples(st.integers(0, len(LINES) - 1),
                           st.sampled_from(["total = value", "total -= value", "if value < 0:", "pass",
                                            "# a comment here", "", "result = [0]", "return result"]),
                           st.booleans()), max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS, st.booleans())
def test_ranges_are_inside_the_candidate_on_code_never_comments_pragma_or_whitespace(edits, pragma) -> None:
    lines = list(LINES)
    for at, text, replace in edits:
        indent = " " * (len(lines[at]) - len(lines[at].lstrip()))
        if replace:
            lines[at] = indent + text
        else:
            lines.insert(at, indent + text + "  # why not")
    candidate = ("# refscore: reference=summary.ref.py\n" if pragma else "") + "\n".join(lines) + "\n"
    result = found(candidate)
    for item in result.differences:
        assert 0 <= item.start < item.end <= len(candidate)
        piece = candidate[item.start:item.end]
        assert piece == piece.strip() and piece  # on code, not on whitespace
        line = candidate.splitlines()[item.range[0]]
        assert "#" not in piece and "refscore:" not in line  # never a comment or the pragma line
        assert item.range[0] == candidate.count("\n", 0, item.start)
        assert 0.0 <= item.weight <= 1.0
        assert REFERENCE[item.reference_start:item.reference_end].strip()
        if item.kind in ("changed", "extra", "name") and "`" in item.reason:
            named = " ".join(piece.split())
            assert f"`{named if len(named) <= 48 else named[:47] + '…'}`" in item.reason  # the reason names its code
    if candidate == REFERENCE or (pragma and candidate.split("\n", 1)[1] == REFERENCE):
        assert result.differences == ()


JAVA = '''public class Stats {
    public static int sumAbove(int[] values, int limit) {
        int total = 0;
        for (int i = 0; i < values.length; i++) {
            if (values[i] > limit) {
                total += values[i];
            }
        }
        return total;
    }
}
'''


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, len(JAVA) - 1), max_size=5), st.sampled_from(
    [("total += values[i]", "total = values[i]"), ("i < values", "i <= values"), ("> limit", "> total"),
     ("int total = 0;", "")]))
def test_block_and_line_comments_are_never_in_a_range(cuts, slip) -> None:
    text = JAVA.replace(*slip)
    for at in sorted({c for c in cuts if c < len(text) and text[c] == " "}, reverse=True):
        text = text[:at] + " /* no+=here */ " + text[at:]  # a comment where a space was
    text = "// refscore: reference=Stats.ref.java\n" + text
    result = find_differences(text, (JAVA,), ScoreReport("java", codebleu=score_codebleu([JAVA], text, "java")))
    assert result.differences
    for item in result.differences:
        piece = text[item.start:item.end]
        assert piece and piece == piece.strip() and "/*" not in piece and "*/" not in piece and "//" not in piece
        assert item.range[0] > 0  # never the pragma line


def test_with_the_embedded_model_the_slip_leads_and_token_similarities_count() -> None:
    """Real CodeBERTScore (the embedded all-MiniLM-L6-v2): its token similarities are one of the
    signals, and the e2e sample's slip still leads."""
    from refscore.scoring import pipeline
    from refscore.scoring.report import ScoreRequest
    from refscore.scoring.scorer import LocalScorer

    sample = Path(__file__).resolve().parents[2] / "client-vscode" / "e2e" / "workspace"
    candidate = (sample / "totals.py").read_text(encoding="utf-8")
    request = ScoreRequest(candidate, (REFERENCE,), "python")
    report = LocalScorer().score(request)
    if report.codebertscore is None:
        pytest.skip(f"CodeBERTScore unavailable here: {report.errors}")
    first = pipeline.differences(request, report).differences[0]
    assert first.range[0] == 8 and "`+=`" in first.reason
    assert dict(first.evidence)["codebertscore"] > 0


@pytest.mark.parametrize("candidate", [
    "int f(int[] a){ int s = 0; for (int i = 0; i < a.length; i += 1) { s = s + a[i]; } return s; }",
    "int f(int[] a){ int s = 0; for (int i = 0; i < a.length; i++) { s += a[i]; } return s; }",
])
def test_one_update_spelled_two_ways_is_no_difference(candidate: str) -> None:
    reference = "int f(int[] a){ int s = 0; for (int i = 0; i < a.length; i++) { s += a[i]; } return s; }"
    assert find_differences(candidate, (reference,), None, "java").differences == ()


def test_an_update_with_more_operators_is_not_read_as_compound() -> None:
    reference = "def f(x, y, z):\n    x -= y + z\n    return x\n"
    candidate = "def f(x, y, z):\n    x = x - y + z\n    return x\n"  # (x - y) + z: another value
    assert find_differences(candidate, (reference,), None, "python").differences
