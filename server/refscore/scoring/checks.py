"""The checks stage: what is known about a request's texts and why a number is missing, found once.

``finish`` (``scoring.pipeline``) records a ``Checks`` in every report: the first syntax error
of the candidate and of each reference (the language's own parser's line where it runs in
process, else tree-sitter's), the bidirectional control characters of each ("Trojan Source"),
each metric asked for that gave no number with the line that says why, and why the combined
RefScore number that applies to the request is missing. The front ends only render it: the
grader's warnings and ``parse_error`` column (``grade/block_score.py``), the editor's bidi
diagnostics (``lsp/diagnostics.py``), ``score``'s warnings and notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .. import languages
from ..analysis.cache import sized_cache
from ..bidi import BidiControl, find_bidi
from ..languages import UNKNOWN, native_error_line
from .budget import over_budget

if TYPE_CHECKING:  # the report holds a Checks: report.py imports this module
    from .report import ScoreReport, ScoreRequest


@dataclass(frozen=True)
class Checks:
    """The checks of one request (``checks``); frozen, with a JSON form (``to_dict``)."""

    #: the 1-based line of the candidate's first syntax error, None when it parses (or is over
    #: the scoring budget: not parsed)
    syntax_error: int | None = None
    #: the same for each reference, in order
    reference_syntax_errors: tuple[int | None, ...] = ()
    #: the candidate's bidi controls (offsets in the request's candidate text)
    bidi: tuple[BidiControl, ...] = ()
    #: each reference's bidi controls, in order
    reference_bidi: tuple[tuple[BidiControl, ...], ...] = ()
    #: (metric, the line that says why) of each metric asked for that gave no number
    not_run: tuple[tuple[str, str], ...] = ()
    #: why the combined RefScore number that applies to this request is missing (``headline``)
    combined: str | None = None

    @property
    def parse_error(self) -> str | None:
        """``syntax error near line N`` when the candidate does not parse although a reference
        does (None when it parses, or when no reference parses either: a snippet or a body)."""
        errors = self.reference_syntax_errors
        if self.syntax_error is None or (errors and all(line is not None for line in errors)):
            return None
        return f"syntax error near line {self.syntax_error}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (bidi controls as ``[offset, line, "U+202E"]``)."""
        return {"syntax_error": self.syntax_error, "reference_syntax_errors": list(self.reference_syntax_errors),
                "bidi": _controls_out(self.bidi), "reference_bidi": [_controls_out(c) for c in self.reference_bidi],
                "not_run": [list(pair) for pair in self.not_run], "combined": self.combined}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Checks":
        """Inverse of ``to_dict``."""
        return cls(data.get("syntax_error"), tuple(data.get("reference_syntax_errors", ())),
                   _controls_in(data.get("bidi", ())), tuple(_controls_in(c) for c in data.get("reference_bidi", ())),
                   tuple((str(m), str(why)) for m, why in data.get("not_run", ())), data.get("combined"))


def _controls_out(controls: Sequence[BidiControl]) -> list[list[Any]]:
    return [[c.offset, c.line, c.code] for c in controls]


def _controls_in(rows: Sequence[Sequence[Any]]) -> tuple[BidiControl, ...]:
    return tuple(BidiControl(int(offset), int(line), chr(int(str(code)[2:], 16))) for offset, line, code in rows)


def checks(request: ScoreRequest, report: ScoreReport, combined: str | None = None) -> Checks:
    """The checks stage of one request whose report ``finish`` is building (its scores in place);
    ``combined``: why its combined number is missing (``headline.combined_for``)."""
    language = request.language
    return Checks(_checked_line(request.candidate, language),
                  tuple(_checked_line(r, language) for r in request.references),
                  tuple(find_bidi(request.candidate)), tuple(tuple(find_bidi(r)) for r in request.references),
                  not_run(request, report), combined)


def not_run(request: ScoreRequest, report: ScoreReport) -> tuple[tuple[str, str], ...]:
    """(metric, why) of each metric ``request`` asks for that ``report`` has no number of: the
    first error line that names it (in the report's order), a behaviour that did not run, else
    ``not computed``."""
    found: dict[str, str] = {}
    for metric in dict.fromkeys(request.metrics):
        value = getattr(report, metric, None)
        if metric == "behaviour" and value is not None and not value.ran:
            found[metric] = f"behaviour not run: {value.not_run}"
        elif value is None:
            found[metric] = next((e for e in report.errors if e.lower().startswith(metric)), f"{metric}: not computed")
    order = {line: index for index, line in reversed(list(enumerate(report.errors)))}
    return tuple(sorted(found.items(), key=lambda pair: order.get(pair[1], len(order))))


def _checked_line(text: str, language: str) -> int | None:
    """``syntax_error_line`` of a text within the scoring budget (``scoring.budget``); one over it
    is not parsed (its report's error says it was not scored)."""
    return None if over_budget(text, ()) else syntax_error_line(text, language)


@sized_cache(max_entries=1024, max_chars=2_000_000)
def syntax_error_line(text: str, language: str) -> int | None:
    """The 1-based line of the first syntax error tree-sitter recovered from, else None; where the
    language's own parser runs in process (``languages.native_error_line``), its line (the one the
    student's error message names), and None when it accepts what tree-sitter did not.
    Remembered per text: a reference is checked once per submission, a report may be finished twice."""
    try:
        spec = languages.get(language)
        if _parsed_clean(text, spec.name):
            return None
        root = spec.parse(text.encode("utf-8")).root_node
    except Exception:  # noqa: BLE001 - a check must never break scoring
        return None
    if not root.has_error:
        return None
    native = native_error_line(spec, text)
    if native != UNKNOWN:
        return native if isinstance(native, int) else None
    stack = [root]
    while stack:  # the first innermost ERROR or MISSING node in document order: where it went wrong
        node = stack.pop()
        inner = [c for c in node.children if c.has_error or c.is_missing]
        if (node.type == "ERROR" or node.is_missing) and not inner:
            return int(node.start_point[0]) + 1
        stack.extend(reversed(inner))
    return 1


def _parsed_clean(text: str, language: str) -> bool:
    """Whether CodeBLEU parsed ``text`` in this process already and found no error (its cached
    analysis says so): the common case needs no second parse. Texts with a CR are parsed here
    (CodeBLEU's analysis reads their line breaks normalised)."""
    from ..analysis.document import known_structure

    known = known_structure(text, language, "native") if "\r" not in text else None
    return known is not None and not known.has_syntax_errors
