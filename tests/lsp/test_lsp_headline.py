"""A headline users can trust (issue 43, items 3 and 6): the combined number only inside the data
its fit saw, in plain words, never as logits, hashes or CodeBLEU's internal names; behaviour
leads where it ran. End to end with the real daemon and model."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest

from refscore.behaviour.result import BehaviourResult, FunctionAgreement
from refscore.combined.domain import fitted_domain, outside
from refscore.combined.model import digest
from refscore.lsp.render import behaviour_line, plain_explanation
from tests.lsp import samples
from tests.lsp.daemon import bert_unavailable, own_daemon
from tests.lsp.harness import session
from tests.lsp.test_lsp_behaviour import BUGGY, DATA as PAIRING, STUDENT

BOTH = {"metrics": ["codebleu", "codebertscore"]}
FIT = f"refscore|fit:{digest()}|inputs:10"
#: Internal words a reader must never see in a hover or a summary.
JARGON = re.compile(r"ngram_match|dataflow_match|syntax_match|comesFrom|computedFrom|_statement|logit|"
                    r"refscore\|fit:|[+-]\d\.\d\d\b")


def test_the_domain_is_the_fits_data_and_says_why_in_words() -> None:
    domain = fitted_domain()
    assert domain is not None and domain["fit"] == digest()
    low, high = domain["inputs"]["ref_len"]
    inside = {"ref_len": (low + high) / 2, "len_ratio": 0.0}
    assert outside(inside, FIT) is None
    whole_file = {"ref_len": math.log(20_001), "len_ratio": 0.0}
    assert outside(whole_file, FIT) == (f"the reference has 20,000 tokens, and the number was fitted on references "
                                        f"of 1 to {round(math.exp(high) - 1)} tokens (single functions)")
    assert "times as long" in outside({"ref_len": low, "len_ratio": 9.0}, FIT)
    assert outside(whole_file, "refscore|fit:0123456789|inputs:10") is None  # another fit: its data unknown


def test_behaviour_and_explanations_in_words() -> None:
    ran = BehaviourResult(0.925, 40, 37, functions=(FunctionAgreement("average", 20, 17),
                                                    FunctionAgreement("median", 20, 20)))
    assert behaviour_line(ran) == "behaves like the reference on 37 of 40 inputs (average 17/20, median 20/20)"
    assert behaviour_line(BehaviourResult.skipped("no sandbox")) == "behaviour not run: no sandbox"
    assert plain_explanation("dataflow_match", "result computedFrom value") == "result is computed from value"
    assert plain_explanation("dataflow_match", "n comesFrom (definition)") == "n is defined"
    assert plain_explanation("syntax_match", "if_statement: if n % 3 == 0: x") == "if n % 3 == 0: x"
    assert plain_explanation("ngram_match", "a: b") == "a: b"


def _many_functions(count: int) -> str:
    return "\n\n".join(f"def step_{k}(values):\n    total = {k}\n    for value in values:\n        total += value * {k}\n"
                       f"    return total\n" for k in range(count))


@pytest.mark.asyncio
@pytest.mark.skipif(bert_unavailable() is not None, reason=bert_unavailable() or "")
async def test_the_combined_number_only_inside_its_fits_data(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    small = samples.write_pair(ws, "small")
    (ws / "big.ref.py").write_text(_many_functions(30), encoding="utf-8")
    big = ws / "big.py"
    big.write_text(_many_functions(30).replace("total += value * 7", "total = value * 7"), encoding="utf-8")
    with own_daemon(tmp_path) as env:
        async with session(ws, settings=BOTH, daemon=True, env=env) as s:
            shown = {}
            for path in (small, big):
                doc = s.open(path)
                shown[path] = await s.wait_scored(doc)
                shown[path, "hover"] = (await s.hover(doc, 0, 2)).contents.value
    small_summary, big_summary = shown[small], shown[big]
    assert "refscore" in small_summary.data and "refscoreWithheld" not in small_summary.data
    assert "how likely the code is correct, judging by its similarity to the reference" in small_summary.message
    assert "refscore" not in big_summary.data
    assert big_summary.data["refscoreWithheld"].startswith("the reference has ")
    assert "combined number not shown: the reference has" in big_summary.message
    assert "(single functions)" in shown[big, "hover"]
    for text in (small_summary.message, big_summary.message, shown[small, "hover"], shown[big, "hover"]):
        assert not JARGON.search(text), JARGON.search(text)


def test_diagnostic_messages_quote_code_instead_of_backticks() -> None:
    from refscore.lsp.render import plain_quotes

    reason = "the reference accumulates to `total` here (`+=`, in `total += value`); this line assigns with `=` instead"
    assert plain_quotes(reason) == ("the reference accumulates to 'total' here ('+=', in 'total += value'); "
                                    "this line assigns with '=' instead")
    assert plain_quotes("a lone ` stays") == "a lone ` stays"


@pytest.mark.asyncio
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="behaviour runs in a bubblewrap sandbox")
async def test_where_behaviour_ran_it_leads_the_summary(tmp_path: Path) -> None:
    """The editor's per-function runs, added up, lead the summary and its hover; fixing the bug
    takes the count to every input."""
    (tmp_path / "stats.ref.py").write_text((PAIRING / "stats.ref.py").read_text(encoding="utf-8"), encoding="utf-8")
    cand = tmp_path / "stats.py"
    cand.write_text(STUDENT + BUGGY, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        buggy = await s.wait_summary(doc, 1, contains="behaves like the reference on")
        hover = (await s.hover(doc, 0, 2)).contents.value
        version = s.replace_all(doc, STUDENT + BUGGY.replace("len(values)\n    return", "sum(values)\n    return"))
        fixed = await s.wait_summary(doc, version, contains="average_ai 40/40")  # its function run again
    lead = re.compile(r"\): behaves like the reference on (\d+) of (\d+) inputs \(average \d+/\d+, average_ai (\d+)/\d+\)")
    found, after = lead.search(buggy.message), lead.search(fixed.message)
    assert found and after, (buggy.message, fixed.message)
    assert int(found[1]) < int(found[2]) and int(found[3]) < int(found[2]) // 2
    assert after[1] == after[2]  # the fix: every input agrees
    assert "- behaves like the reference on" in hover
