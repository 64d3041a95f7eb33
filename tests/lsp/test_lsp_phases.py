"""The scoring phases hand back results ready to publish: what publishing a result needs that
depends only on the result (position tables in the session's encoding, the bidi scan, the
``refscore/tokenScores`` notification as JSON) is made where the phase runs, the large lane's
worker process or the CPU pool, not on the event loop, and survives the pickle back."""

from __future__ import annotations

import json
import pickle
import re
from dataclasses import replace
from pathlib import Path

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from refscore import languages
from refscore.lsp import phases
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.requests import request_for
from refscore.lsp.results import Result
from refscore.lsp.settings import Settings
from refscore.lsp.tokens import token_scores
from refscore.metrics.codebertscore_result import BertScore, TokenAlignment
from refscore.scoring.parts import CpuScores, ModelScores

from tests.lsp import samples

TEXT = "é = 1\n" + samples.CANDIDATE  # é: two UTF-8 code units, one UTF-16 unit
SETTINGS = Settings(metrics=("codebleu", "codebertscore"))


def _result(codec: PositionCodec) -> Result:
    return Result("file:///w/c.py", 3, TEXT, languages.for_lsp_id("python"),
                  ReferenceChoice((Path("/w/c.ref.py"),), "convention"), (samples.REFERENCE,),
                  ("file:///w/c.ref.py",), codec=codec, sends_token_scores=True)


def _tokens(text: str) -> tuple[TokenAlignment, ...]:
    return tuple(TokenAlignment(m.group(), m.start(), m.end(), 0.5) for m in re.finditer(r"\w+", text))


def _back(result: Result) -> Result:
    """The result as the server receives it from the worker process."""
    return pickle.loads(pickle.dumps(result))


def test_the_codebleu_phase_returns_positions_in_the_sessions_encoding_and_the_bidi_scan() -> None:
    utf8 = PositionCodec(types.PositionEncodingKind.Utf8)
    result = _back(phases.codebleu_phase(_result(utf8), SETTINGS, None, None))
    ready = result.__dict__
    assert "positions" in ready and set(ready.get("_ref_positions", ())) == {0}, sorted(ready)
    assert ready["positions"].position(TEXT.index("= 1")).character == 3  # counted in UTF-8 bytes
    assert "bidi" in ready and ready["bidi"] == []
    # a result made from it on the loop (the state changed, the text did not) keeps them
    derived = result.derive(bert_state="unavailable")
    assert derived.__dict__.get("positions") is ready["positions"] and "bidi" in derived.__dict__


def test_the_finish_phase_returns_the_token_scores_notification_as_json() -> None:
    codec = PositionCodec()
    scored = phases.codebleu_phase(_result(codec), SETTINGS, None, None)
    bert = BertScore(0.8, 0.7, 0.75, 0.71, "m", 6, "cpu", False, False, False, "sig",
                     _tokens(TEXT), _tokens(samples.REFERENCE))
    both = request_for(SETTINGS, TEXT, (samples.REFERENCE,), "python", None, ("codebleu", "codebertscore"))
    finished = _back(phases.finish_phase(scored, both, CpuScores.of(scored.report), ModelScores(bert), "done",
                                         None, None, scored.functions))
    sent = finished.__dict__.get("token_scores_json")
    assert sent is not None, sorted(finished.__dict__)
    # a client that did not ask for the notification (Neovim, Emacs): its JSON is not written
    quiet = phases.finish_phase(replace(scored, sends_token_scores=False), both, CpuScores.of(scored.report),
                                ModelScores(bert), "done", None, None, scored.functions)
    assert "token_scores_json" not in quiet.__dict__ and quiet.code_tokens
    assert json.loads(sent) == token_scores(replace(finished, codec=codec))
    assert json.loads(sent)["tokens"][0] == {"range": {"start": {"line": 0, "character": 0},
                                                       "end": {"line": 0, "character": 1}}, "similarity": 0.5}


def test_the_token_scores_json_is_json_dumps_of_the_payload_byte_for_byte() -> None:
    """The notification's text is written directly (a large file's tokens, no dict per range):
    it must be exactly what ``json.dumps`` makes of the payload, whatever the similarities are."""
    codec = PositionCodec()
    scored = phases.codebleu_phase(_result(codec), SETTINGS, None, None)
    values = iter([0.5, 1e-05, 0.123456789, 1.0, 0.0, -0.25, 0.99995] * 100)
    tokens = tuple(TokenAlignment(m.group(), m.start(), m.end(), next(values)) for m in re.finditer(r"\w+", TEXT))
    bert = BertScore(0.8, 0.7, 0.75, 0.71, "m", 6, "cpu", False, False, False, "sig", tokens, _tokens(samples.REFERENCE))
    both = request_for(SETTINGS, TEXT, (samples.REFERENCE,), "python", None, ("codebleu", "codebertscore"))
    finished = phases.finish_phase(scored, both, CpuScores.of(scored.report), ModelScores(bert), "done",
                                   None, None, scored.functions)
    payload = token_scores(finished)
    assert payload is not None and len(payload["tokens"]) > 5 and payload["differences"]
    assert finished.__dict__["token_scores_json"] == json.dumps(payload)


def _many_explanations(settings: Settings) -> tuple[Result, Result]:
    """A large-lane phase's result (as the server receives it) for a candidate that lacks most of
    a long reference, and the same document scored in the CPU pool's phases (nothing shed)."""
    reference = "".join(f"def step_{i}(value):\n    total = value + {i}\n    return total * {i}\n\n" for i in range(150))
    candidate = "def step_0(value):\n    return value\n"
    def result() -> Result:
        return Result("file:///w/c.py", 3, candidate, languages.for_lsp_id("python"),
                      ReferenceChoice((Path("/w/c.ref.py"),), "convention"), (reference,), ("file:///w/c.ref.py",),
                      codec=PositionCodec())
    shed = _back(phases.codebleu_phase(result(), settings, None, None))
    kept = phases.ranking_phase(phases.summary_phase(result(), settings, None, phases.own_scorers(), None),
                                settings, phases.own_scorers())
    return shed, kept


def test_the_large_lane_sends_back_only_the_explanations_the_server_reads() -> None:
    from refscore.lsp.missing import MAX_ITEMS, missing_items

    shed, kept = _many_explanations(Settings(metrics=("codebleu",)))
    assert kept.report is not None and kept.report.codebleu is not None
    assert len(kept.report.codebleu.explanations) > MAX_ITEMS  # else this shows nothing
    assert shed.report is not None and shed.report.codebleu is not None
    assert shed.report.codebleu.explanations == kept.report.codebleu.explanations[:MAX_ITEMS]
    assert shed.report.codebleu.score == kept.report.codebleu.score  # the numbers are the same
    assert missing_items(shed, 0.5) == missing_items(kept, 0.5)  # the hover and the command read these
    assert shed.differences == kept.differences  # ranked before the explanations were shed


def test_the_large_lane_keeps_every_explanation_when_codebertscore_ranks_them_again() -> None:
    shed, kept = _many_explanations(Settings(metrics=("codebleu", "codebertscore")))
    assert shed.report is not None and kept.report is not None
    assert shed.report.codebleu == kept.report.codebleu
