"""The CPU phases of scoring one document version, as module-level functions on a ``Result``, so
that they run alike in the loop's thread pool and, for a large document, in the large lane's
worker process (``lanes``): what they take and return is pickled there."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..parsing.reaper import busy
from ..scoring.pairing import FunctionPair, best_region, pair_functions, score_pending
from ..scoring.parts import CpuScores, ModelScores
from ..scoring.pipeline import finish, prepare
from ..scoring.headline import warm_text_inputs
from ..scoring.report import ScoreRequest
from .current import carried_differences, carried_tokens, same_inputs
from .missing import MAX_ITEMS
from .requests import request_for
from .results import Insertion, Result
from .scorers import Scorers, ScorerUnavailable, size_verdict
from .snapshot import Prepared
from .tokens import token_scores_json
from .words import text_layout

#: The text caches' bounds (entries, characters held) in the language server: every version of
#: an edited document is a new text, so the grader's bounds (millions of characters, ~0.6 MB per version of a 6 KB document)
#: let an editing session grow by hundreds of MB; with these its memory plateaus (issue 25, item 12).
CACHE_ENTRIES = 48
CACHE_CHARS = 1_500_000
#: The cyclic collector's first threshold in an editing process (Python's is 700 allocations): an
#: edit of a large file allocates hundreds of thousands of short-lived objects, and each young
#: collection only scans them; at this one a 20,000-line edit spends about 40 % less in the collector.
EDITING_GC_THRESHOLD = 20_000
#: A document whose text and references hold more characters than this is scored in the large
#: lane (one worker process of its own, as the daemon's large lanes), so it never takes the
#: workers the small documents' edits need, nor the server's GIL from the event loop. A
#: 2,000-line file and its reference (about 120,000 characters, a phase of under 0.1 s) stay in
#: the CPU pool: the hop to the worker and back (its result pickled) cost them a third of an edit's update.
LARGE_CHARS = 250_000

log = logging.getLogger(__name__)


def serve_edits() -> None:
    """Set this process up to score an editor's documents (the server's and its large lane's
    worker): its text caches bounded (``CACHE_CHARS``), the top-level parts of edited documents
    kept (``parsing.flat.keep_parts``) with their data-flow walks (``dataflow.keep_walks``), each
    new version parsed from the last (``parsing.parsed.reparse_edits``) and its tokens counted from
    the last's (``analysis.token_edits.recount_edits``), and what the caches evict
    freed after the update (``parsing.reaper.defer_frees``), its young collections less frequent
    (``EDITING_GC_THRESHOLD``)."""
    from ..analysis.cache import limit_caches
    from ..analysis.token_edits import recount_edits
    from ..dataflow import keep_walks
    from ..parsing.flat import keep_parts
    from ..parsing.parsed import reparse_edits
    from ..parsing.reaper import defer_frees

    limit_caches(CACHE_ENTRIES, CACHE_CHARS)
    keep_parts()
    keep_walks()
    reparse_edits()
    recount_edits()
    defer_frees()
    gc.set_threshold(EDITING_GC_THRESHOLD, *gc.get_threshold()[1:])


@lru_cache(maxsize=1)
def own_scorers() -> Scorers:
    """This process's scorers (a worker process has no server's): CodeBLEU only, the process set
    up as the server's is (``serve_edits``)."""
    serve_edits()
    return Scorers(allow_daemon=False)


def codebleu_phase(result: Result, settings: Any, insertion: tuple[int, int, int] | None,
                   scorers: Scorers | None = None, summary: bool = False) -> Result:
    """CodeBLEU of the whole document, of each function, of a large insertion, and the ranked
    differences, filled into ``result`` (returned ready to publish). ``scorers``: the server's
    (else this process's). The large lane's phase (``summary``: the functions not scored before
    are left pending, for ``scored_pairs``); the CPU pool runs it in two (``summary_phase``, then
    ``ranking_phase``)."""
    with busy():
        scored = _codebleu(result, settings, insertion, scorers or own_scorers(), summary=summary)
        rank_differences(scored)
        if scored.report is not None and not _finished_later(scored, settings):
            # the explanations the server reads (hover, command) once the differences are ranked:
            # sending all of a 20,000-line file's 16,000 back from the large lane took a fifth of an edit
            scored.report = scored.report.first_explanations(MAX_ITEMS)
        return ready_to_publish(scored)


def scored_pairs(pairs: list[FunctionPair], text: str, references: tuple[str, ...], spec: Any,
                 settings: Any, scorers: Scorers | None = None) -> list[FunctionPair]:
    """``pairs`` of ``text`` with those left pending scored (``scorers``: the server's, else this
    process's): ``ranking_phase``'s first step, and the large lane's second phase (a 20,000-line
    file's first summary no longer waits for its 2,000 functions' CodeBLEU, nor an edit's for its
    pairs' memo)."""
    with busy():
        return score_pending(pairs, text, references, spec, (scorers or own_scorers()).codebleu_many,
                             settings.codebleu_weights)


def _finished_later(result: Result, settings: Any) -> bool:
    """Whether a CodeBERTScore finish stage may follow (it ranks the explanations again)."""
    return settings.codebertscore_on and result.report is not None and bert_size_verdict(result, settings) is None


def bert_size_verdict(result: Result, settings: Any) -> str | None:
    """Why CodeBERTScore skips ``result``'s texts, known from their lengths (``scorers.size_verdict``);
    None when they are within its limit."""
    assert result.spec is not None
    return size_verdict(request_for(settings, result.text, result.reference_texts, result.spec.name,
                                    result.choice.context, ()))


@dataclass(frozen=True)
class Opened:
    """What a scoring run's first CPU job found (``open_phase``): no reference (``prepared`` None);
    the shown result that answers these inputs already (``kept``); or ``result``, a summary to
    publish (``summarised``: its ranking follows), a problem's result to publish, or a large
    document's to score in the large lane."""

    prepared: Prepared | None
    kept: Result | None = None
    result: Result | None = None
    summarised: bool = False


def open_phase(text: str, find: Callable[[], Prepared | None], start: Callable[..., Result], settings: Any,
               shown: Result | None, scored_with: Any, insertion: tuple[int, int, int] | None,
               scorers: Scorers) -> Opened:
    """The first CPU job of scoring a document version, in one hop to the CPU pool: its
    references found (``find``: ``snapshot.prepare`` of ``text``), its result started
    (``start(spec, choice, reference texts, reference uris, problem=)``) and, when it is scored
    here rather than in the large lane, its summary (``summary_phase``; ``shown``: the document's
    last result, made with the settings ``scored_with``)."""
    prepared = find()
    if prepared is None:
        return Opened(None)
    if same_inputs(shown, text, prepared, settings, scored_with):
        return Opened(prepared, kept=shown)
    result = start(prepared.spec, prepared.choice, prepared.texts, prepared.uris, problem=prepared.problem)
    if result.problem is not None:  # its position tables and bidi scan off the loop too
        return Opened(prepared, result=ready_to_publish(result))
    if large(result):
        return Opened(prepared, result=result)
    return Opened(prepared, result=summary_phase(result, settings, insertion, scorers, shown), summarised=True)


def large(result: Result) -> bool:
    """Whether the result's document is scored in the large lane (``LARGE_CHARS``)."""
    return len(result.text) + sum(len(t) for t in result.reference_texts) > LARGE_CHARS


def summary_phase(result: Result, settings: Any, insertion: tuple[int, int, int] | None,
                  scorers: Scorers, shown: Result | None) -> Result:
    """``codebleu_phase`` without the ranked differences: ``result`` carries those of ``shown``
    (the document's last result) that the edit did not touch (``current.carried_differences``),
    and, with CodeBERTScore on, its weak tokens likewise (``current.carried_tokens``); the
    functions whose pairs were not scored before (those the edit touched) are left ``pending``.
    What the summary shows, published at once; ``ranking_phase`` follows."""
    with busy():
        result.carried_differences = carried_differences(shown, result)
        if settings.codebertscore_on:  # while it is pending (``loop`` drops them when it is not asked for)
            result.carried = carried_tokens(shown, result)
        return ready_to_publish(_codebleu(result, settings, insertion, scorers, summary=True))


def ranking_phase(result: Result, settings: Any, scorers: Scorers) -> Result:
    """``result`` (a summary phase's) with its functions' pending CodeBLEU scored and its own
    ranked differences, ready to publish."""
    with busy():
        ranked = result.derive(carried_differences=None)
        if ranked.functions_pending:
            ranked.functions = scored_pairs(ranked.functions, ranked.text, ranked.reference_texts, ranked.spec,
                                            settings, scorers)
        rank_differences(ranked)
        return ready_to_publish(ranked)


def _codebleu(result: Result, settings: Any, insertion: tuple[int, int, int] | None, scorers: Scorers,
              summary: bool = False) -> Result:
    spec = result.spec
    assert spec is not None
    request = request_for(settings, result.text, result.reference_texts, spec.name, result.choice.context,
                          ("codebleu",) if settings.codebleu_on else ())
    if not settings.codebleu_on:
        result.report = finish(prepare(request))  # an empty report: CodeBERTScore's finish fills it
        return result
    try:
        result.report = scorers.codebleu(request)
    except ScorerUnavailable as error:
        result.problem = str(error)
        return result
    try:
        # a summary's functions that the edit touched are scored with its differences (``ranking_phase``)
        result.functions = pair_functions(result.text, result.reference_texts, spec, scorers.codebleu_many,
                                          settings.codebleu_weights, later=scorers.codebleu_new if summary else None)
    except Exception:  # noqa: BLE001 - lenses are optional; the summary still shows
        log.exception("function pairing failed")
    if insertion is not None:
        _, start, end = insertion
        found = best_region(result.text[start:end], result.reference_texts, spec, scorers.codebleu_many,
                            settings.codebleu_weights)
        if found is not None:
            region, report = found
            result.insertion = Insertion(start, end, region,
                                         report.codebleu.score if report.codebleu is not None else None)
    return result


def finish_phase(result: Result, both: ScoreRequest, cpu: CpuScores, model: ModelScores, state: str,
                 note: str | None, insertion: Insertion | None, functions: list[FunctionPair]) -> Result:
    """The finish stage on both halves (this process's CPU stage, the daemon's model stage), then
    the ranked differences, which read the token similarities: a new result, ready to publish."""
    with busy():
        report = finish(prepare(both), cpu, model)
        updated = result.derive(bert_state=state, bert_note=note, insertion=insertion, report=report,
                                functions=functions, carried=(), carried_differences=None)
        rank_differences(updated)
        return ready_to_publish(updated)


def warm_finish(result: Result, both: ScoreRequest) -> None:
    """Make, while the daemon encodes, what the finish stage on ``both`` reads that depends on
    the texts alone (kept where it runs): the combined number's text inputs and the layout of the
    code tokens the heat map is drawn on. A 2,000-line file's finish stage spent a third of its
    time on them, after the daemon's answer."""
    with busy():
        warm_text_inputs(both)
        text_layout(result.text, result.spec)


def rank_differences(result: Result) -> None:
    """Compute the result's ranked differences (kept on it) where this runs."""
    result.differences  # noqa: B018 - a cached property: computing it is the point


def ready_to_publish(result: Result) -> Result:
    """Make, where this runs, what publishing ``result`` reads that depends on nothing else: the
    position tables of its texts (in its codec's encoding), the bidi scan and, for a client that
    asked for them, the token scores' JSON. In the large lane's process they come back with the
    result (a pickled list of line starts and a string); built on the event loop they held it for
    0.05 s to over a second."""
    result.positions  # noqa: B018 - cached properties: computing them is the point
    tokens = result.code_tokens  # with token alignments: a parse of the text (its comments and docstrings)
    for index in range(len(result.reference_texts)):
        result.reference_positions(index)
        if tokens:  # the weak tokens' closest reference code is never a word of its prose
            result.reference_prose(index)
    result.bidi  # noqa: B018
    if result.sends_token_scores:
        token_scores_json(result)  # kept on the result: a large one would take the event loop for a second
    return result
