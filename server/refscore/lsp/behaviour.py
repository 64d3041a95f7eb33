"""Behaviour in the editor: each paired function run beside its reference function in the
sandbox (``scoring.function_behaviour``), on save or once the document has been idle for
``IDLE_S``, never in an untrusted workspace or with ``refscore.behaviour.enabled`` off.

A newer edit cancels a run between two functions (one function's run in the sandbox finishes
in its thread and is dropped). Results are kept by the function's text and its reference
function: a function whose text did not change keeps its lens and diagnostic while the rest of
the document is edited, and is not run again until it changes. A pass that changes only lenses
sends ``workspace/codeLens/refresh``, not the diagnostics again (one stable update per edit).

* lens: ``behaves like `average` on 37/40 inputs``;
* diagnostic on the function's first line where it differs: ``for `average([])` this returns
  `0`, the reference raises ZeroDivisionError (differs on 3 of 40 inputs)``.
* notification ``refscore/workspaceTrusted`` ``{trusted: bool}`` (and
  ``initializationOptions.workspaceTrusted``): VS Code's Workspace Trust; a client that says
  nothing is taken as trusted (its user opened the folder; the sandbox still confines the code).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..bidi import printable
from ..behaviour import BehaviourResult, Disagreement, supported_languages
from ..scoring.function_behaviour import BehaviourMemo, function_behaviour
from ..scoring.pairing import BEHAVES_ALIKE, MAX_BEHAVIOUR_RUNS, FunctionPair, rank_references
from .diagnostics import document_behaviour
from .pairings import Pairings
from .render import behaviour_line
from .results import Result

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)

TRUST_NOTIFICATION = "refscore/workspaceTrusted"
CODE = "refscore.behaviour"
#: Seconds without a newer result before a document's functions are run.
IDLE_S = 1.0
#: A document with more functions than this is not run in the editor.
MAX_DOCUMENT_FUNCTIONS = 100
#: At most this many functions are run per pass (the rest at the next one).
MAX_FUNCTIONS = 40
#: Results kept per document.
MAX_KEPT = 400

Key = tuple[str, str, int, str, str]  # function name, its text, reference index, reference function, reference


def pair_key(result: Result, pair: FunctionPair) -> Key | None:
    """What a function's behaviour depends on, as far as the editor keeps it."""
    region = pair.region
    if region is None or region.name is None:
        return None
    return (pair.function.name, result.text[pair.function.start:pair.function.end], region.reference_index,
            region.name, result.reference_texts[region.reference_index])


class EditorBehaviour:
    """Runs, keeps and shows the behaviour of each open document's functions."""

    def __init__(self, server: "RefScoreServer") -> None:
        self.server = server
        self.trusted = True
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.kept: dict[str, dict[Key, BehaviourResult]] = {}
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="refscore-behaviour")
        self.pairings = Pairings(server)
        self.client_commands: set[str] = set()  # initializationOptions.clientCommands

    @property
    def enabled(self) -> bool:
        return self.trusted and getattr(self.server.settings, "behaviour", True)

    def found(self, result: Result, pair: FunctionPair) -> BehaviourResult | None:
        """The kept behaviour of ``pair`` in ``result`` (None: not run for this text)."""
        kept = self.kept.get(result.uri) if self.enabled else None
        key = pair_key(result, pair) if kept else None  # none kept (typing): no key made per function
        return kept.get(key) if kept and key is not None else None

    def _wanted(self, result: Result) -> list[FunctionPair]:
        if not self.enabled or result.problem is not None or result.spec is None \
                or result.spec.name not in supported_languages():
            return []
        if len(result.functions) > MAX_DOCUMENT_FUNCTIONS:
            return []  # a whole program's worth: ``refscore score`` runs it; the editor stays light
        kept = self.kept.get(result.uri, {})
        return [p for p in result.functions if (key := pair_key(result, p)) is not None and key not in kept]

    def after_publish(self, uri: str, result: Result | None) -> None:
        """A result was published: pair it again where an override asks (``lsp.pairings``), else
        run what it has not run yet once the document is idle."""
        if result is not None and self.pairings.needs(result):
            self.pairings.apply(result)
        elif result is not None and self._wanted(result):
            self._start(uri, result.version, IDLE_S)

    def saved(self, uri: str) -> None:
        """The document was saved: run what has not run yet now, not after the idle wait (a save of
        text whose functions all ran runs and publishes nothing)."""
        result = self.server.loop.results.get(uri)
        if result is not None and self._wanted(result):
            self._start(uri, result.version, 0.0)

    def set_trusted(self, trusted: bool) -> None:
        """The workspace's trust changed: run (trusted) or withdraw everything shown (untrusted)."""
        self.trusted = trusted
        if not trusted:
            for task in self.tasks.values():
                task.cancel()
        for uri, result in list(self.server.loop.results.items()):
            self.server.publish(uri, result.version, result)

    def forget(self, uri: str) -> None:
        task = self.tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        self.kept.pop(uri, None)
        self.pairings.forget(uri)

    def shutdown(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _start(self, uri: str, version: int, delay: float) -> None:
        old = self.tasks.get(uri)
        if old is not None and not old.done():
            old.cancel()
        self.tasks[uri] = asyncio.get_running_loop().create_task(self._run(uri, version, delay))

    def _current(self, uri: str, version: int) -> Result | None:
        """The document's result while it is still the one of ``version`` and the text shown."""
        result = self.server.loop.results.get(uri)
        document = self.server.document(uri)
        if result is None or result.version != version or document is None or document.version != version:
            return None
        return result

    async def _run(self, uri: str, version: int, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            result = self._current(uri, version)
            if result is None or result.spec is None:
                return
            if self.pairings.needs(result):  # paired again first; its publish starts the next pass
                self.pairings.apply(result)
                return
            loop = asyncio.get_running_loop()
            shown = self._said(result)
            for pair in self._wanted(result)[:MAX_FUNCTIONS]:
                key = pair_key(result, pair)
                assert key is not None and pair.region is not None
                found = await loop.run_in_executor(self.pool, function_behaviour, result.text, pair.function,
                                                   pair.region, result.reference_texts, result.spec)
                if self._current(uri, version) is None or not self.enabled:
                    return  # a newer edit: what it ran belongs to a text no longer there
                kept = self.kept.setdefault(uri, {})
                kept[key] = found
                while len(kept) > MAX_KEPT:
                    kept.pop(next(iter(kept)))
                await self._behaviour_first(result, pair, found)
                if self._current(uri, version) is None or not self.enabled:
                    return
            latest = self._current(uri, version)  # the loop may have published this version again
            if latest is None:
                return
            if self.pairings.needs(latest):  # paired again, published; what changed runs at the next pass
                self.pairings.apply(latest)
            elif self._said(latest) != shown:
                self.server.publish(uri, version, latest)
            else:  # only lenses changed: no diagnostics published again (one stable update per edit)
                self._refresh_lenses(latest)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - behaviour is extra: the scores stay
            log.exception("behaviour of %s failed", uri)

    def _said(self, result: Result) -> tuple[list[tuple[int, str]], str | None]:
        """What the published diagnostics say of behaviour: its own, and the summary's lead line."""
        return _messages(self.diagnostics(result)), behaviour_line(document_behaviour(self, result))

    def _refresh_lenses(self, result: Result) -> None:
        """Ask the client for the lenses again; a pass with more functions to run goes on."""
        if self.server._supports("workspace", "code_lens", "refresh_support"):
            self.server.workspace_code_lens_refresh(None)
        if self._wanted(result):
            self._start(result.uri, result.version, IDLE_S)

    async def _behaviour_first(self, result: Result, pair: FunctionPair, found: BehaviourResult) -> bool:
        """Behaviour before resemblance: a function paired by resemblance that does not behave
        like its reference function is run beside the other reference functions with its
        signature; one it behaves like becomes its pairing. A function paired by behaviour that
        no longer behaves alike goes back to the rule. Whether the pairing changed."""
        alike = found.ran and found.inputs > 0 and (found.agreement or 0.0) >= BEHAVES_ALIKE
        if pair.matched_by == "behaviour" and not alike:
            self.pairings.choose(result.uri, pair.function.name, None)
            return True
        if pair.matched_by != "alignment" or alike:
            return False
        loop = asyncio.get_running_loop()
        better = await loop.run_in_executor(self.pool, self._behaves_like, result, pair)
        if better is None:
            return False
        self.pairings.choose(result.uri, pair.function.name, better, "behaviour")
        return True

    def _behaves_like(self, result: Result, pair: FunctionPair) -> str | None:
        """The reference function (of the same signature) ``pair``'s function behaves like best,
        on at least ``BEHAVES_ALIKE`` of its inputs; None when there is none."""
        assert result.spec is not None
        settings = self.server.settings
        ranked = rank_references(pair.function, result.text, result.reference_texts, result.spec,
                                 self.server.scorers.codebleu_many, settings.codebleu_weights)
        memo = BehaviourMemo(result.reference_texts, result.spec)
        best: tuple[float, str] | None = None
        for region, evidence in [(r, e) for r, e in ranked if e.signature and r != pair.region][:MAX_BEHAVIOUR_RUNS]:
            agreement = memo.agreement(pair.function, result.text, region)
            if agreement is not None and agreement >= BEHAVES_ALIKE and region.name is not None \
                    and (best is None or agreement > best[0]):
                best = (agreement, region.name)
        return best[1] if best is not None else None

    # -- what is shown -------------------------------------------------------------------------

    def diagnostics(self, result: Result) -> list[types.Diagnostic]:
        """One diagnostic per function that behaves differently from its reference function."""
        out = []
        for pair in result.functions:
            found = self.found(result, pair)
            if found is None or not found.ran or found.agrees_everywhere or not found.disagreements:
                continue
            start = pair.function.start
            line = result.positions.position(start).line
            name = pair.region.name if pair.region is not None else ""
            out.append(types.Diagnostic(
                range=result.positions.line_range(line), severity=types.DiagnosticSeverity.Warning,
                source="RefScore", code=CODE, message=printable(message(found, found.disagreements[0])),
                data={"version": result.version, "function": pair.function.name, "referenceFunction": name,
                      "agreed": found.agreed, "inputs": found.inputs}))
        return out

    def lens_title(self, result: Result, pair: FunctionPair) -> str | None:
        """``behaves like `average` on 37/40 inputs``, why it did not run, or None (not run yet)."""
        found = self.found(result, pair)
        if found is None or pair.region is None:
            return None
        if not found.ran:
            return printable(f"RefScore: behaviour not run ({found.not_run})")
        return printable(f"RefScore: behaves like `{pair.region.name}` on {found.agreed}/{found.inputs} inputs")


def _messages(found: list[types.Diagnostic]) -> list[tuple[int, str]]:
    return [(d.range.start.line, d.message) for d in found]


def _outcome(text: str, reason: str) -> str:
    """An outcome as a verb phrase: ``returns `0```, ``raises ZeroDivisionError``, ``times out``."""
    if text.startswith("raises "):
        return "raises " + text[len("raises "):].split(":", 1)[0]
    if text.startswith(("prints ", "does not ")):
        return text
    if text == reason or text in ("timeout", "missing function", "crashed", "input not accepted"):
        return {"timeout": "runs out of time", "missing function": "is not defined",
                "crashed": "crashes"}.get(text, text)
    return f"returns `{text}`"


def message(result: BehaviourResult, item: Disagreement) -> str:
    """``for `average([])` this returns `0`, the reference raises ZeroDivisionError (differs on 3
    of 40 inputs)``."""
    differing = result.inputs - result.agreed
    extra = f"; {item.reason}" if item.reason in ("changed its arguments differently", "printed something else") else ""
    return (f"for `{item.input}` this {_outcome(item.actual, item.reason)}, the reference "
            f"{_outcome(item.expected, '')}{extra} (differs on {differing} of {result.inputs} inputs)")


def register(server: "RefScoreServer") -> None:
    @server.feature(TRUST_NOTIFICATION)
    def workspace_trusted(ls: "RefScoreServer", params: Any) -> None:
        trusted = params.get("trusted") if isinstance(params, dict) else getattr(params, "trusted", None)
        if isinstance(trusted, bool):
            ls.behaviour.set_trusted(trusted)
