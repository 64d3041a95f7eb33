"""Properties of the dataflow walker's branch join on large states (issue 16: linear time).

A branch copies and joins only the variables under it once the state is large
(``_kinds.local_state``); with small states it copies the whole state, as before. The two must
give the same edges, in every language and both modes, on real code, concatenated into files
with many variables and randomly damaged; and the package's own edges on a large module.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
for _path in (str(ROOT), str(ROOT / "server")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from refscore import languages  # noqa: E402
from refscore.parsing.flat import flatten  # noqa: E402
from refscore.dataflow import MODES, _kinds, dropped_types, extract_raw_edges  # noqa: E402

from tests.support.real_code import apply_edits, edits, texts  # noqa: E402

LANGUAGES = languages.names()
ALWAYS_LOCAL = 0       # every branch joins only its own variables
ALWAYS_WHOLE = 10**12  # every branch copies and joins the whole state (the old walk)


def flow(text: str, language: str, mode: str, small_state: int) -> list:
    """The edges of ``text`` with the branch join switching to local states above ``small_state``."""
    spec = languages.get(language)
    root = spec.parse(text.encode("utf-8")).root_node
    flat = flatten(root, spec.name, dropped_types(spec.name, mode))
    saved = _kinds.SMALL_STATE
    _kinds.SMALL_STATE = small_state
    try:
        return extract_raw_edges(flat, text, spec.name, mode=mode)
    finally:
        _kinds.SMALL_STATE = saved


def assert_joins_agree(text: str, language: str, mode: str) -> None:
    whole = flow(text, language, mode, ALWAYS_WHOLE)
    assert flow(text, language, mode, ALWAYS_LOCAL) == whole, f"{language}/{mode}:\n{text}"
    assert flow(text, language, mode, _kinds.SMALL_STATE) == whole, f"{language}/{mode}:\n{text}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_one_file_of_all_real_texts(language: str, mode: str) -> None:
    """Every real text of the language in one file: hundreds of variables reach each branch."""
    # the texts with dataflow of their own (one the package fails on would void the whole file)
    corpus = [t for t in texts(language) if flow(t, language, mode, ALWAYS_WHOLE)]
    assert len(corpus) > 10, f"too little real {language} code with dataflow"
    if language == "php":  # one file, one opening tag
        corpus = ["<?php"] + [t.replace("<?php", "") for t in corpus]
    text = "\n".join(corpus)
    assert_joins_agree(text, language, mode)
    assert flow(text, language, mode, ALWAYS_LOCAL), "no dataflow at all: the test checks nothing"


@pytest.mark.parametrize("language", LANGUAGES)
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_damaged_concatenations(language: str, data: st.DataObject) -> None:
    """A few real texts, joined and randomly edited: both joins give the same edges."""
    corpus = texts(language)
    picked = data.draw(st.lists(st.sampled_from(corpus), min_size=1, max_size=5), label="texts")
    text = apply_edits("\n".join(picked), data.draw(edits(), label="edits"), donor=corpus[0])
    for mode in MODES:
        assert_joins_agree(text, language, mode)


def _module(functions: int) -> str:
    """A Python module of many functions with branches in loops, each with its own names."""
    parts = []
    for k in range(functions):
        parts.append(
            f"def f{k}(xs{k}, lim{k}):\n"
            f"    total{k} = 0\n"
            f"    for i{k} in xs{k}:\n"
            f"        if i{k} > lim{k}:\n"
            f"            total{k} += i{k}\n"
            f"        elif i{k} < 0:\n"
            f"            lim{k} = lim{k} - i{k}\n"
            f"        else:\n"
            f"            total{k} = total{k} * 2\n"
            f"    while total{k} > lim{k}:\n"
            f"        if total{k} % 2:\n"
            f"            total{k} -= 1\n"
            f"        total{k} = total{k} // 2\n"
            f"    return total{k}\n")
    return "\n".join(parts)


def test_large_module_matches_the_package() -> None:
    """A 60-function module (hundreds of variables in the state) against codebleu 0.7.0's edges."""
    from tests.analysis.test_dataflow_parity import assert_same

    text = _module(60)
    assert_same(text, "python")
    assert_joins_agree(text, "python", "compat")
