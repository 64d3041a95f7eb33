"""While the daemon encodes, the editor makes what the finish stage reads of the texts alone (the
combined number's text inputs, the code tokens' layout): the finish stage after the daemon's
answer finds them made, and they are what it would make itself (lsp/phases.py ``warm_finish``)."""

from __future__ import annotations

from pathlib import Path

from refscore import languages
from refscore.lsp import phases
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.requests import request_for
from refscore.lsp.results import Result
from refscore.lsp.settings import Settings
from refscore.lsp.words import text_layout
from refscore.scoring import headline
from refscore.scoring.headline import TEXT_INPUTS, headline_model, model_inputs, text_inputs

REFERENCE = "def mean(values):\n    # the average\n    return sum(values) / len(values)\n"
CANDIDATE = 'def mean(xs):\n    """Average."""\n    total = 0\n    for x in xs:\n        total += x\n    return total / len(xs)\n'


def _result(text: str) -> Result:
    spec = languages.for_lsp_id("python")
    return Result("file:///w/mean.py", 2, text, spec, ReferenceChoice((Path("/w/mean.ref.py"),), "convention"),
                  (REFERENCE,), ("file:///w/mean.ref.py",))


def test_the_text_inputs_warmed_are_the_ones_the_finish_stage_asks_for() -> None:
    both = request_for(Settings(), CANDIDATE, (REFERENCE,), "python", None, ("codebleu", "codebertscore"))
    model = headline_model()
    assert model is not None
    text_inputs.cache_clear()
    phases.warm_finish(_result(CANDIDATE), both)
    assert text_inputs.cache_info().misses == 1
    # ``headline.components``' own call (the finish stage's request is ``both``): found made
    warmed = text_inputs(both.candidate, tuple(both.references), both.language,
                         frozenset(model_inputs(model) & TEXT_INPUTS))
    assert text_inputs.cache_info().hits == 1 and text_inputs.cache_info().misses == 1
    text_inputs.cache_clear()
    fresh = text_inputs.__wrapped__(both.candidate, tuple(both.references), both.language,
                                    frozenset(model_inputs(model) & TEXT_INPUTS))
    assert warmed == fresh and warmed[1] is None
    assert {"chrfpp", "canon_exact", "extra_errors", "len_ratio"} <= set(warmed[0])


def test_a_request_without_codebertscore_warms_nothing() -> None:
    codebleu_only = request_for(Settings(), CANDIDATE, (REFERENCE,), "python", None, ("codebleu",))
    text_inputs.cache_clear()
    headline.warm_text_inputs(codebleu_only)
    assert text_inputs.cache_info().currsize == 0


def test_the_code_tokens_layout_is_made_once_per_text() -> None:
    spec = languages.get("python")
    edited = CANDIDATE.replace("total", "sum_")
    first = text_layout(edited, spec)
    assert text_layout(edited, spec) is first  # kept: the finish stage reads it
    spans, starts, prose = first
    assert [edited[a:b] for a, b in spans][:4] == ["def", "mean", "(", "xs"] and starts == [a for a, _ in spans]
    assert [edited[a:b] for a, b in prose] == ['"""Average."""']
