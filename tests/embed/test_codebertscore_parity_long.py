"""CodeBERTScore parity with code-bert-score 0.4.1 where the parity corpus never looked (issue 46,
item 5): texts longer than the model's 512-token window, one-token candidates (``pass``), and
contexts with characters a byte-level BPE splits (``≤``). HumanEval-Python pairs, 1e-5.

What the package gives a pair depends on the other pairs of its call: its padded batches let a
padding similarity of 0 into the maximum (a one-token candidate whose similarities are all
negative gets 0), and it plans the windows of a long text on the batch's longest text. So:

* the drop-in ``refscore.compat.score`` gives the package's numbers for the same call, batch
  effects included;
* ``refscore.score`` gives each pair the package's number for that pair alone (one pair per
  call): a pair's score never depends on what else is scored beside it.

Where the package's context rule stops early (a character split across tokens decodes to U+FFFD,
``compat/package_rule.py``) it scores part of the context as code: the drop-in does the same, and
``refscore.score`` keeps only the code.
"""

from __future__ import annotations

import pytest

from tests import bert_fixtures as bf

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

TOL = 1e-5


@pytest.fixture(scope="module")
def oracle():
    return bf.load_oracle()


@pytest.fixture(scope="module")
def pairs() -> list[dict]:
    out = bf.humaneval_pairs(500, per_task=4)
    if len(out) < 500:
        pytest.skip("HumanEval data not on this machine")
    return out


@pytest.fixture(scope="module")
def roberta(tmp_path_factory):
    return bf.tiny_roberta(tmp_path_factory.mktemp("tiny-roberta"))


def _hard(pairs: list[dict], model: str) -> list[dict]:
    """Every pair with a text over 3/4 of the 512-token window (the package windows those on the
    batch's longest text; two are over the window), six one-token candidates and ten ordinary
    pairs; in file order."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model)
    longest = [max(len(ids) for ids in tokenizer([p["hyp"], p["ref"]])["input_ids"]) for p in pairs]
    long = [p for p, n in zip(pairs, longest) if n > 384]
    short = [p for p in pairs if p["hyp"].strip() in ("pass", "return")][:6]
    assert max(longest) > 512 and len(long) >= 4 and len(short) >= 3, (max(longest), len(long), len(short))
    chosen = {id(p) for p in long + short + pairs[:10]}
    return [p for p in pairs if id(p) in chosen]


def _split_characters(pairs: list[dict]) -> list[dict]:
    """Pairs whose task description has a character outside ASCII, and ten others."""
    odd = [p for p in pairs if any(ord(c) > 127 for c in p["nl"])]
    assert len(odd) >= 4, len(odd)
    chosen = {id(p) for p in odd + pairs[:10]}
    return [p for p in pairs if id(p) in chosen]


def _gap(ours, theirs) -> float:
    a, b = torch.stack(list(ours)).double(), torch.stack(list(theirs)).double()
    assert a.shape == b.shape
    return (a - b).abs().max().item()


def _api(pairs: list[dict], model: str, layer: int, context: bool = False):
    import refscore

    rows = refscore.score([p["hyp"] for p in pairs], [p["ref"] for p in pairs], "python",
                          metrics=("codebertscore",), model=model, layer=layer,
                          context=[p["nl"] for p in pairs] if context else None)
    return [torch.tensor([getattr(r, f"codebertscore_{k}") for r in rows], dtype=torch.float64)
            for k in ("precision", "recall", "f1", "f3")]


def test_drop_in_equals_the_package_call_with_long_texts_and_one_token_candidates(oracle, pairs):
    from refscore.compat import score

    hard = _hard(pairs, bf.minilm_path())
    cands, refs = [p["hyp"] for p in hard], [p["ref"] for p in hard]
    kw = dict(model_type=bf.minilm_path(), num_layers=6)
    assert _gap(score(cands, refs, **kw), oracle.score(cands, refs, **kw)) <= TOL


def test_drop_in_takes_the_context_as_the_package_does(oracle, pairs, roberta):
    """``≤`` in a HumanEval prompt, split by the tokenizer: the package scored part of the context
    as code and the drop-in did not (up to 0.39 apart on these pairs)."""
    from refscore.compat import score

    chosen = _split_characters(pairs)
    cands, refs = [p["hyp"] for p in chosen], [p["ref"] for p in chosen]
    kw = dict(model_type=roberta, num_layers=2, sources=[p["nl"] for p in chosen])
    assert _gap(score(cands, refs, **kw), oracle.score(cands, refs, **kw)) <= TOL


def test_api_equals_the_package_pair_by_pair(oracle, pairs):
    """``refscore.score`` on the hard pairs in one call equals the package called once per pair."""
    hard = _hard(pairs, bf.minilm_path())
    ours = _api(hard, bf.minilm_path(), 6)
    theirs = [oracle.score([p["hyp"]], [p["ref"]], model_type=bf.minilm_path(), num_layers=6) for p in hard]
    theirs = [torch.cat([t[k] for t in theirs]) for k in range(4)]
    assert _gap(ours, theirs) <= TOL


def _same_windows(own: int, longest: int, window: int = 512) -> bool:
    """Whether the package's windows for a text of ``own`` tokens, planned on its batch's longest
    text, are the text's own: one window holds it, or its windows are planned on itself."""
    return own == longest or longest <= window or own <= window * 3 // 4


def test_api_with_context_and_long_texts_equals_the_package_pair_by_pair(oracle, pairs, roberta):
    """The RoBERTa code path (``<s>``, windows of 512 after RoBERTa's position offset) with the
    task description as context, on pairs whose context the package reads as RefScore does (ASCII).
    With context even a pair alone is a batch of two for the package (reference and candidate,
    each after the context): where one text is over the window and the other between 3/4 of it
    and it, the other's windows are planned on the longer text and the package's numbers are
    not the text's own; those pairs are counted apart (they are the drop-in's business)."""
    from transformers import AutoTokenizer

    from refscore.metrics.codebertscore import model_input

    tokenizer = AutoTokenizer.from_pretrained(roberta)
    hard, longest, planned_apart = [], [], 0
    for p in _hard(pairs, roberta):
        if not p["nl"].isascii():
            continue
        own = [len(tokenizer(model_input(t, p["nl"]).text)["input_ids"]) for t in (p["hyp"], p["ref"])]
        if all(_same_windows(n, max(own)) for n in own):
            hard.append(p)
            longest.append(max(own))
        else:
            planned_apart += 1
    assert len(hard) >= 20 and sum(n > 512 for n in longest) >= 3, (len(hard), sorted(longest), planned_apart)
    ours = _api(hard, roberta, 2, context=True)
    theirs = [oracle.score([p["hyp"]], [p["ref"]], model_type=roberta, num_layers=2, sources=[p["nl"]])
              for p in hard]
    theirs = [torch.cat([t[k] for t in theirs]) for k in range(4)]
    assert _gap(ours, theirs) <= TOL


def test_the_context_rule_shortcut_gives_the_packages_loop(pairs, roberta):
    """``compat.package_rule``: the two-decode shortcut for plain contexts gives the package's loop's
    answer on every text of the 500 pairs (the loop itself runs where the shortcut does not apply)."""
    from transformers import AutoTokenizer

    from refscore.compat.package_rule import _plain, package_source_length
    from refscore.metrics.codebertscore import CONTEXT_SEPARATOR, model_input

    tokenizer = AutoTokenizer.from_pretrained(roberta)
    plain = 0
    for p in pairs[:250]:
        source = model_input("", p["nl"]).text + CONTEXT_SEPARATOR
        for text in (p["hyp"], p["ref"]):
            model_text = model_input(text, p["nl"])
            encoding = tokenizer(model_text.text, return_offsets_mapping=True)
            tokens = tokenizer.convert_ids_to_tokens(encoding["input_ids"])
            first_code = next(i for i, (_, end) in enumerate(encoding["offset_mapping"])
                              if i and end > model_text.code_start)
            plain += _plain(tokenizer, source)
            assert package_source_length(tokenizer, tokens, source, first_code) == \
                package_source_length(tokenizer, tokens, source), p["task_id"]
    assert plain >= 400
