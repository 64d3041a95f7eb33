"""Commands and custom requests.

* ``refscore.setReference`` ``[uri, path | [paths] | null]``: choose the document's reference(s)
  for this session (relative paths from the document's folder); null goes back to discovery.
  Returns ``{"references": [uri, ...]}``.
* ``refscore.missingFromReference`` ``[uri]``: what the reference has that the candidate lacks,
  ``[{kind, text, uri, range, similarity?}]``; ``text`` is the reference's code as it is (data,
  like a diagnostic's ``data``): a client that displays it escapes control and bidi characters.
* request ``refscore/scoreText`` ``{uri, text}``: scores ``text`` against the document's reference
  (the reference function it implements, ``scoring.pairing``) without touching the document;
  returns ``{codebleu, codebertscore, region: {uri, range, function}, behaviour, differences,
  errors}`` (``behaviour`` and ``differences`` as ``lsp.ranking`` gives them) or ``{error}``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..scoring.pairing import best_region
from . import arguments
from .missing import missing_items
from .ranking import examined
from .render import bert_data, codebleu_data
from ..safe_read import user_path
from .requests import request_for
from .scorers import ScorerUnavailable
from .uris import file_uri, fs_path, real_path

from .server import RefScoreServer  # at run time: pygls reads the handlers' annotations

SET_REFERENCE = "refscore.setReference"
MISSING = "refscore.missingFromReference"
SCORE_TEXT = "refscore/scoreText"
MAX_SCORE_TEXT_CHARS = 200_000


def _field(params: Any, name: str) -> Any:
    if isinstance(params, dict):
        return params.get(name)
    return getattr(params, name, None)


async def _score_text(ls: RefScoreServer, uri: str, text: str) -> dict[str, Any]:
    result = ls.loop.results.get(uri)
    if result is None:
        return {"error": "no reference is known for this document (is it open and does it have one?)"}
    if result.problem is not None or result.spec is None:
        return {"error": result.problem or "this document cannot be scored"}
    if len(text) > MAX_SCORE_TEXT_CHARS:
        return {"error": f"text is {len(text)} characters; the limit is {MAX_SCORE_TEXT_CHARS}"}
    settings, spec, loop = ls.settings, result.spec, asyncio.get_running_loop()
    found = await loop.run_in_executor(ls.loop.cpu, best_region, text, result.reference_texts, spec,
                                       ls.scorers.codebleu_many, settings.codebleu_weights)
    if found is None:
        return {"error": "the reference is empty"}
    region, report = found
    ref_text = result.reference_texts[region.reference_index]
    rng = result.reference_positions(region.reference_index).range(region.start, region.end)
    out: dict[str, Any] = {
        "codebleu": codebleu_data(report.codebleu) if report.codebleu is not None else None,
        "codebertscore": None, "errors": list(report.errors),
        "region": {"uri": result.reference_uris[region.reference_index], "function": region.name,
                   "range": {"start": {"line": rng.start.line, "character": rng.start.character},
                             "end": {"line": rng.end.line, "character": rng.end.character}}}}
    # how it behaves beside that region's function and where it departs from it (lsp/ranking.py)
    out.update(await loop.run_in_executor(ls.behaviour.pool, examined, ls, result, text, region))
    if settings.codebertscore_on:
        request = request_for(settings, text, (ref_text[region.start:region.end],), spec.name,
                              result.choice.context, ("codebertscore",))
        try:
            reports = await loop.run_in_executor(ls.loop.daemon, ls.scorers.codebertscore, [request])
            bert = reports[0].codebertscore
            out["codebertscore"] = bert_data(bert) if bert is not None else None
            out["errors"] += reports[0].errors
        except ScorerUnavailable as error:
            out["errors"].append(str(error))
    return out


def register(server: RefScoreServer) -> None:
    @server.command(SET_REFERENCE)
    def set_reference(ls: RefScoreServer, *args: Any) -> dict[str, Any]:
        usage = "[documentUri, path | [paths] | null]"
        uri = arguments.document_uri(SET_REFERENCE, usage, args)
        names = arguments.reference_paths(SET_REFERENCE, usage, args)
        if names is None:
            ls.explicit_references.pop(uri, None)
        else:
            path_of_document = fs_path(uri)
            if path_of_document is not None:
                base = path_of_document.parent
            else:  # an unsaved buffer: relative paths start at the first workspace folder, as pragmas do
                folders = ls.folders()
                base = folders[0] if folders else Path.home()
            paths = []
            for name in names:
                path = (fs_path(name) or Path(name)) if name.startswith("file:") else user_path(name)
                paths.append(real_path(path if path.is_absolute() else base / path))
            ls.explicit_references[uri] = tuple(paths)
        if ls.document(uri) is not None:
            ls.loop.schedule(uri, immediate=True)
        return {"references": [file_uri(p) for p in ls.explicit_references.get(uri, ())]}

    @server.command(MISSING)
    def missing(ls: RefScoreServer, *args: Any) -> list[dict[str, Any]]:
        uri = arguments.document_uri(MISSING, "[documentUri]", args)
        result = ls.loop.results.get(uri)
        if result is None or result.problem is not None:
            return []
        return missing_items(result, ls.settings.weak_threshold)

    @server.feature(SCORE_TEXT)
    async def score_text(ls: RefScoreServer, params: Any) -> dict[str, Any]:
        uri, text = _field(params, "uri"), _field(params, "text")
        if not isinstance(uri, str) or not isinstance(text, str):
            return {"error": "refscore/scoreText takes {uri: string, text: string}"}
        for name, value in (("uri", uri), ("text", text)):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as error:  # "\udc00" in the JSON: not a character
                raise arguments.invalid(SCORE_TEXT, "{uri: string, text: string}",
                                        f"{name} holds a lone surrogate (U+{ord(value[error.start]):04X}) at "
                                        f"index {error.start}, which is not Unicode text") from None
        return await _score_text(ls, uri, text)
