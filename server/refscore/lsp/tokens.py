"""Per-token similarities for clients: the ``refscore/tokenScores`` notification (opt-in with
``initializationOptions.tokenScores``) ``{uri, version, tokens: [{range, similarity}], differences:
[range]}`` (whole code tokens, none in comments or docstrings; the ranked differences' ranges, so
that a heat map marks the real slip even where its tokens resemble the reference), and
optional inlay hints with each line's mean similarity (setting ``inlayHints.enabled``)."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .current import View, view
from .render import has_tokens

if TYPE_CHECKING:  # annotations only: the model (results) imports this view, never the reverse at run time
    from .results import Result
    from .server import RefScoreServer


def _span_dict(span: tuple[tuple[int, int], tuple[int, int]]) -> dict[str, Any]:
    """An LSP range as JSON, from a ((line, character), (line, character)) span."""
    (line, character), (end_line, end_character) = span
    return {"start": {"line": line, "character": character}, "end": {"line": end_line, "character": end_character}}


def token_scores(result: Result) -> dict[str, Any] | None:
    """The notification's payload (whole code tokens, none in comments or docstrings); None until
    CodeBERTScore token alignments exist."""
    if result.problem is not None or not has_tokens(result.bert):
        return None
    lines = result.positions.lines  # plain (line, character) pairs: no protocol object per position
    tokens = [{"range": _span_dict(lines.range(t.start, t.end)), "similarity": round(t.similarity, 4)}
              for t in result.code_tokens]
    differences = [_span_dict(lines.range(d.start, d.end)) for d in result.differences.differences]
    return {"uri": result.uri, "version": result.version, "tokens": tokens, "differences": differences}


def line_similarities(seen: View) -> dict[int, float]:
    """Mean token similarity per line (0-based) of the current text; tokens an unscored edit
    touched are left out."""
    result = seen.result
    sums: dict[int, list[float]] = defaultdict(list)
    for token in result.code_tokens:
        moved = seen.span(token.start, token.end)
        if moved is not None:
            sums[seen.positions.position(moved[0]).line].append(token.similarity)
    return {line: sum(values) / len(values) for line, values in sums.items()}


def register(server: "RefScoreServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hints(ls: "RefScoreServer", params: types.InlayHintParams) -> list[types.InlayHint]:
        seen = view(ls, params.text_document.uri)
        if not ls.settings.inlay_hints or seen is None:
            return []
        hints = []
        for line, value in sorted(line_similarities(seen).items()):
            if not params.range.start.line <= line <= params.range.end.line:
                continue
            end = seen.positions.line_range(line).end
            hints.append(types.InlayHint(position=end, label=f"sim {value:.2f}", padding_left=True,
                                         kind=types.InlayHintKind.Parameter))
        return hints


def token_scores_json(result: Result) -> str | None:
    """The ``refscore/tokenScores`` notification's params as JSON text (None without token
    alignments), made once per result and kept on it: the phases make it where they run, so the
    event loop only sends it. The text is ``json.dumps(token_scores(result))``'s, written directly
    (a 2,000-line file has some 15,000 tokens: a dict per range took most of the time)."""
    if "token_scores_json" not in result.__dict__:
        result.__dict__["token_scores_json"] = _encoded(result)
    return result.__dict__["token_scores_json"]


_RANGE = '{"start": {"line": %d, "character": %d}, "end": {"line": %d, "character": %d}}'
_TOKEN = '{"range": ' + _RANGE + ', "similarity": %s}'


def _encoded(result: Result) -> str | None:
    if result.problem is not None or not has_tokens(result.bert):
        return None
    lines = result.positions.lines
    tokens = []
    for token in result.code_tokens:
        similarity = round(token.similarity, 4)
        if not math.isfinite(similarity):  # NaN or infinity: json's own spelling
            return json.dumps(token_scores(result))
        (a, b), (c, d) = lines.range(token.start, token.end)
        tokens.append(_TOKEN % (a, b, c, d, float.__repr__(float(similarity))))
    differences = [_RANGE % (a, b, c, d) for (a, b), (c, d) in
                   (lines.range(item.start, item.end) for item in result.differences.differences)]
    return (f'{{"uri": {json.dumps(result.uri)}, "version": {json.dumps(result.version)}, '
            f'"tokens": [{", ".join(tokens)}], "differences": [{", ".join(differences)}]}}')
