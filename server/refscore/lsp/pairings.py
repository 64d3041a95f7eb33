"""Pairings that override the rule for one document's functions: the user's choice
(``refscore.compareWith``) and the reference function a function turned out to behave like when
run (``lsp.behaviour``). A result published with other pairings is paired again with these (the
same ``scoring.pairing.pair_functions``, in the CPU pool) and published once more, so the lenses,
the behaviour runs and the code actions all follow one pairing."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..scoring.pairing import FunctionPair, pair_functions
from .results import Result

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)


class Pairings:
    """uri -> candidate function name -> (reference function name, how)."""

    def __init__(self, server: "RefScoreServer") -> None:
        self.server = server
        self.chosen: dict[str, dict[str, tuple[str, str]]] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def choose(self, uri: str, function: str, reference_function: str | None, how: str = "chosen") -> None:
        """Pair ``function`` with ``reference_function`` from now on (None: the rule again)."""
        mine = self.chosen.setdefault(uri, {})
        if reference_function is None:
            mine.pop(function, None)
        elif how == "chosen" or mine.get(function, ("", ""))[1] != "chosen":  # the user's choice stays
            mine[function] = (reference_function, how)

    def forget(self, uri: str) -> None:
        self.chosen.pop(uri, None)
        task = self.tasks.pop(uri, None)
        if task is not None:
            task.cancel()

    def _differs(self, pair: FunctionPair, wanted: tuple[str, str] | None) -> bool:
        if wanted is None:
            return pair.matched_by in ("chosen", "behaviour")  # an override withdrawn
        return pair.region is None or pair.region.name != wanted[0] or pair.matched_by != wanted[1]

    def needs(self, result: Result) -> bool:
        """Whether ``result``'s pairing is not the one these overrides ask for."""
        if result.problem is not None or result.spec is None:
            return False
        mine = self.chosen.get(result.uri, {})
        return any(self._differs(p, mine.get(p.function.name)) for p in result.functions)

    def apply(self, result: Result) -> None:
        """Pair ``result`` again with the overrides and publish it (unless a newer one came)."""
        old = self.tasks.get(result.uri)
        if old is not None and not old.done():
            old.cancel()
        self.tasks[result.uri] = asyncio.get_running_loop().create_task(self._apply(result))

    async def _apply(self, result: Result) -> None:
        assert result.spec is not None
        settings, loop = self.server.settings, asyncio.get_running_loop()
        try:
            functions = await loop.run_in_executor(
                self.server.loop.cpu, lambda: pair_functions(
                    result.text, result.reference_texts, result.spec, self.server.scorers.codebleu_many,
                    settings.codebleu_weights, chosen=dict(self.chosen.get(result.uri, {}))))
        except Exception:  # noqa: BLE001 - the rule's pairing stays shown
            log.exception("pairing %s again failed", result.uri)
            return
        latest = self.server.loop.results.get(result.uri)
        if latest is not result:  # a newer result came meanwhile: pair that one
            if latest is not None and self.needs(latest):
                self.apply(latest)
            return
        mine = self.chosen.get(result.uri, {})
        for pair in functions:  # an override that cannot be honoured (no such reference function) goes
            wanted = mine.get(pair.function.name)
            if wanted is not None and self._differs(pair, wanted):
                del mine[pair.function.name]
        bert = {p.function.name: p for p in result.functions}
        kept = [_keep_bert(p, bert.get(p.function.name)) for p in functions]
        updated = result.derive(functions=kept)
        self.server.loop.results[result.uri] = updated
        self.server.publish(result.uri, result.version, updated)


def _keep_bert(pair: FunctionPair, before: FunctionPair | None) -> FunctionPair:
    """``pair`` with the CodeBERTScore of the same pairing before, where it had one."""
    from dataclasses import replace

    if before is None or before.region != pair.region:
        return pair
    return replace(pair, f1=before.f1, f3=before.f3)
