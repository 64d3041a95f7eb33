"""Behaviour of the CodeBERTScore scorer: alignment, context, long inputs, bad input."""

from __future__ import annotations

import math

import refscore

import pytest

from tests import bert_fixtures  # noqa: F401  (offline env, import path)

pytest.importorskip("torch")
pytest.importorskip("transformers")

from refscore.metrics.codebertscore import is_scored_token, model_input  # noqa: E402
from refscore.analysis.positions import LinePositions as LineIndex  # noqa: E402
from refscore.embed.bertscorer import BertScorer, InputTooLargeError, ScorePair  # noqa: E402
from refscore.embed.files import load_idf, save_idf  # noqa: E402
from refscore.embed.models import get_default_scorer  # noqa: E402
from refscore.metrics.codebertscore_result import merge_pieces  # noqa: E402


@pytest.fixture(scope="module")
def scorer() -> BertScorer:
    return get_default_scorer()


def test_default_scorer_is_embedded_minilm_layer_6(scorer):
    res = scorer.score("x = 1", "y = 1")
    assert (res.model, res.layer, res.device) == ("all-MiniLM-L6-v2", 6, "cpu")
    assert res.signature == f"cbs|model:all-MiniLM-L6-v2|layer:6|idf:no|rescale:no|ctx:no|version:{refscore.__version__}"
    assert 0 < res.f1 <= 1 and res.f3 == pytest.approx(10 * res.precision * res.recall / (9 * res.precision + res.recall))


def test_token_exclusion_rule():
    assert not is_scored_token("(") and not is_scored_token("):") and not is_scored_token("\u0120")
    assert not is_scored_token("\u0120\u010a") and not is_scored_token("##.")
    for tok in ("+", "-", "*", "/", "&", "|", "~", "\u0120+=", "def", "[CLS]", "</s>", "##s"):
        assert is_scored_token(tok), tok


def test_renamed_variable_aligns_with_counterpart(scorer):
    res = scorer.score("total = price * quantity\nreturn total", "amount = price * quantity\nreturn amount")
    renamed = [t for t in res.candidate_tokens if t.text == "total"]
    assert len(renamed) == 2 and all(t.match_text == "amount" for t in renamed)
    first = renamed[0]
    assert (first.match_start, first.match_end) == (0, 6)


def test_token_without_counterpart_is_lowest(scorer):
    res = scorer.score("x = compute(a)\nprint(banana)\nreturn x", "x = compute(a)\nreturn x")
    lowest = min(res.candidate_tokens, key=lambda t: t.similarity)
    assert lowest.text == "banana"
    # the reference side: every reference token is present in the candidate
    assert min(t.similarity for t in res.reference_tokens) > 0.8


def test_missing_tokens_show_on_reference_side(scorer):
    res = scorer.score("def f(xs):\n    return len(xs)", "def f(xs):\n    xs.sort()\n    return len(xs)")
    weakest = min(res.reference_tokens, key=lambda t: t.similarity)
    assert weakest.text in {"sort", "."} or weakest.start >= 15


def test_ranges_with_non_ascii_before_token(scorer):
    cand = "s = '😀é'\nvalue = 1"
    res = scorer.score(cand, "s = 'x'\nvalue = 1")
    for t in res.candidate_tokens:
        assert cand[t.start:t.end] == t.text
    value = next(t for t in res.candidate_tokens if t.text == "value")
    lines = LineIndex(cand)
    assert lines.range(value.start, value.end) == ((1, 0), (1, 5))
    # UTF-16: the emoji counts 2 units on its line
    quote_end = cand.index("'", 5)
    assert lines.position(quote_end) == (0, 5 + 2 + 1)


def test_context_excluded_and_offsets_into_original_text(scorer):
    cand = "\n\n  return a + b  \n"
    res = scorer.score(cand, "return x + y", context="Add the two numbers a and b.")
    assert res.context and "ctx:yes" in res.signature
    assert [t.text for t in res.candidate_tokens] == ["return", "a", "+", "b"]
    for t in res.candidate_tokens:
        assert cand[t.start:t.end] == t.text
    no_ctx = scorer.score(cand, "return x + y")
    assert res.f1 != no_ctx.f1  # the context changes the vectors, not the tokens


def test_context_with_byte_level_bpe(tmp_path):
    from refscore.embed.encoder import encoder_for
    from refscore.embed.registry import ModelSpec

    folder = bert_fixtures.tiny_roberta(tmp_path / "rob")
    scorer = BertScorer(encoder_for(ModelSpec("tiny-roberta", folder, 2)))
    cand = "  def add(a, b):\n    return a + b"
    res = scorer.score(cand, "def add(x, y):\n    return x + y", context="Add two numbers, 😀 please.")
    assert res.candidate_tokens and all(cand[t.start:t.end] == t.text for t in res.candidate_tokens)
    assert res.candidate_tokens[0].text == "def"
    assert "tiny-roberta" in res.signature


def test_merge_pieces_and_lines():
    from refscore.metrics.codebertscore_result import TokenAlignment

    text = "my_var = 1\r\nz"
    toks = [TokenAlignment("my", 0, 2, 0.5, 1.0, None, None, None),
            TokenAlignment("_", 2, 3, 0.7, 1.0, None, None, None),
            TokenAlignment("var", 3, 6, 0.9, 1.0, "v", 0, 1),
            TokenAlignment("1", 9, 10, 0.4, 1.0, None, None, None)]
    words = merge_pieces(toks, text)
    assert [(w.text, w.pieces) for w in words] == [("my_var", 3), ("1", 1)]
    assert words[0].similarity == pytest.approx(0.7) and words[0].match_text == "v"
    assert LineIndex(text).position(12) == (1, 0)


def test_long_candidate_scores_and_every_token_aligned(scorer):
    body = "\n".join(f"value_{i} = compute(value_{i - 1}, {i})" for i in range(1, 160))
    res = scorer.score(body, "value_1 = compute(value_0, 1)")
    enc = scorer.encoder.tokenize([body.strip()])[0]
    assert len(enc.ids) > scorer.encoder.window  # longer than the model window
    scored = [i for i, t in enumerate(enc.tokens) if not enc.special[i] and is_scored_token(t)]
    assert len(res.candidate_tokens) == len(scored)
    assert res.candidate_tokens[-1].end == len(body) - 1  # the final ")" is punctuation
    assert all(-1.0 <= t.similarity <= 1.0 + 1e-6 for t in res.candidate_tokens)
    assert 0 < res.precision <= 1


def test_deterministic(scorer):
    pairs = [ScorePair("def f(a): return a * 2", ["def g(b): return b + b"], "python", "double it"),
             ("for i in range(3): print(i)", "print(0); print(1); print(2)")]
    first = [r.f1 for r in scorer.score_batch(pairs)]
    scorer.encoder.cache.clear()
    second = [r.f1 for r in scorer.score_batch(list(reversed(pairs)))]
    assert first == list(reversed(second))


@pytest.mark.parametrize("cand,ref", [("", "x = 1"), ("x = 1", ""), ("   \n\t", "x = 1"),
                                      ("();", "x = 1"), ("", "")])
def test_empty_inputs_score_zero(scorer, cand, ref):
    res = scorer.score(cand, ref)
    assert (res.precision, res.recall, res.f1, res.f3) == (0.0, 0.0, 0.0, 0.0)


def test_binary_and_undecodable_input(scorer):
    res = scorer.score(b"\xff\xfe x = 1 \x00\x01", "x = 1")
    assert 0 <= res.f1 <= 1 and not math.isnan(res.f1)
    res = scorer.score("\x00\x01\x02\udcff binary\x7f", "x = 1")
    assert 0 <= res.f1 <= 1


def test_huge_input_is_a_clear_error(scorer):
    big = "x = 1\n" * (5 * 1024 * 1024 // 6)
    with pytest.raises(InputTooLargeError, match="characters"):
        scorer.score(big, "x = 1")


def test_a_huge_context_is_told_to_be_shorter_not_the_code(scorer):
    """A 5 MB context (issue 25, item 19): the advice is about the context, not the code."""
    with pytest.raises(InputTooLargeError, match="give a shorter context") as raised:
        scorer.score("x = 1", "x = 1", context="words " * (1024 * 1024))
    assert "smaller part" not in str(raised.value)


def test_multiple_references_componentwise_best(scorer):
    res = scorer.score("return a + b", ["return a - b", "return a + b", "print(a)"])
    assert res.reference_index == 1 and res.f1 == pytest.approx(1.0, abs=1e-5)
    assert len(res.per_reference) == 3
    assert res.precision == max(r[0] for r in res.per_reference)


def test_idf_from_references_matches_compat_and_file_roundtrip(scorer, tmp_path):
    from refscore.compat.bertscore_api import score

    cands = ["return a + b", "x = [i * 2 for i in xs]"]
    refs = ["return x + y", "x = list(map(lambda i: i * 2, xs))"]
    idf_scorer = BertScorer(scorer.encoder, idf="references")
    ours = [r.f1 for r in idf_scorer.score_batch(list(zip(cands, refs)))]
    _, _, f1, _ = score(cands, refs, model_type=bert_fixtures.minilm_path(), num_layers=6, idf=True)
    assert ours == pytest.approx(f1.tolist(), abs=1e-5)
    from refscore.embed.bertscorer import idf_from_references

    table = idf_from_references(scorer.encoder, refs)
    save_idf(table, tmp_path / "idf.json")
    loaded = load_idf(tmp_path / "idf.json")
    assert loaded.weights == pytest.approx(table.weights) and loaded.default == table.default
    from_file = BertScorer(scorer.encoder, idf=tmp_path / "idf.json").score_batch(list(zip(cands, refs)))
    assert [r.f1 for r in from_file] == pytest.approx(ours, abs=1e-6)
    assert from_file[0].idf and "idf:yes" in from_file[0].signature


def test_rescale_baseline(scorer):
    plain = scorer.score("return a + b", "return x + y")
    scaled = BertScorer(scorer.encoder, baseline=(0.5, 0.5, 0.5, 0.5)).score("return a + b", "return x + y")
    assert scaled.rescaled and scaled.precision == pytest.approx((plain.precision - 0.5) / 0.5)


def test_model_input_mapping():
    mi = model_input("  \n code()  ", "  Do it.  ")
    assert mi.text == "Do it. \ncode()"
    assert mi.to_original(mi.code_start, mi.code_start + 4) == (4, 8)
    assert model_input("", "ctx").text == "ctx" and model_input("a", "  ").text == "a"
