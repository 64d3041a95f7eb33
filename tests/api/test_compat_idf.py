"""`refscore.compat.score(..., idf=)` reads an IDF argument as code-bert-score 0.4.1 does,
checked against the installed package (real tokenizer, real embedded model)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests import bert_fixtures as bf

torch = pytest.importorskip("torch")

CANDS = ["def add(a, b):\n    return a + b", "x = [i * i for i in range(10)]"]
REFS = ["def add(x, y):\n    return x + y", "squares = [n ** 2 for n in range(10)]"]


def _kw() -> dict:
    return dict(model_type=bf.minilm_path(), num_layers=6)


def _rows(result) -> list[list[float]]:
    return [t.tolist() for t in result]


@pytest.mark.parametrize("empty", [{}, defaultdict(lambda: 2.0)], ids=["dict", "defaultdict"])
def test_an_empty_idf_dict_means_no_idf_as_in_the_package(empty) -> None:
    """The package tests ``if not idf`` first, so an empty dict is ``idf=False``; RefScore read
    it as a table weighing every token 0 (P and R NaN, F1 0.0) or 2.0 (CLS and SEP counted)."""
    from refscore.compat import score

    expected = bf.load_oracle().score(CANDS, REFS, idf=empty, **_kw())
    got = score(CANDS, REFS, idf=empty, **_kw())
    for ours, theirs in zip(got, expected):
        assert torch.allclose(ours, theirs, atol=1e-5, equal_nan=False), (ours, theirs)
    assert _rows(got) == _rows(score(CANDS, REFS, idf=False, **_kw()))


def test_a_plain_idf_dict_without_a_token_of_the_texts_is_a_key_error_as_in_the_package() -> None:
    """The package looks every token up in a plain dict (``KeyError``); RefScore weighed the
    missing ones 0, silently: a dict of a few ids gave P and R NaN, a JSON-loaded dict from
    another corpus gave numbers with its unseen tokens left out."""
    from refscore.compat import score
    from refscore.errors import ScoreInputError

    with pytest.raises(KeyError):
        bf.load_oracle().score(CANDS, REFS, idf={101: 0.0}, **_kw())
    for kind in (KeyError, ScoreInputError):
        with pytest.raises(kind, match="idf: the dict has no weight for token id"):
            score(CANDS, REFS, idf={101: 0.0}, **_kw())


def test_an_idf_dict_with_every_token_gives_the_packages_numbers() -> None:
    """A dict that weighs every token (the package's own, from ``get_idf_dict``, made plain)."""
    from code_bert_score.utils import get_idf_dict
    from transformers import AutoTokenizer

    from refscore.compat import score

    tokenizer = AutoTokenizer.from_pretrained(bf.minilm_path())
    table = dict(get_idf_dict(REFS + CANDS, tokenizer, nthreads=1))
    expected = bf.load_oracle().score(CANDS, REFS, idf=table, **_kw())
    for ours, theirs in zip(score(CANDS, REFS, idf=table, **_kw()), expected):
        assert torch.allclose(ours, theirs, atol=1e-5), (ours, theirs)

