"""The drop-in APIs take the packages' arguments: `calc_codebleu(..., keywords_dir=)` as
codebleu 0.7.0 does (it was a TypeError), and `score(..., return_hash=True)` returns
`((P, R, F1, F3), hash)` as code-bert-score 0.4.1 does; the package options that would change the
numbers or their shape (`all_layers`, `no_punc=False`, `chunk_overlap`) and misspelled keywords
are refused, never silently ignored (they used to be swallowed by `**kwargs`)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests import bert_fixtures
from refscore.compat import calc_codebleu

REFS = ["def f(a):\n    if a:\n        return a + 1\n    return len(a)", "int g(int x) { return x * 2; }"]
PREDS = ["def f(x):\n    return x + 1 if x else 0", "int g(int y) { if (y) return y; return 2; }"]


@pytest.fixture(autouse=True)
def _quiet_package() -> None:
    logging.getLogger().setLevel(logging.ERROR)  # the package warns about missing dataflow


def _package_keywords() -> Path:
    import codebleu

    return Path(codebleu.__file__).parent / "keywords"


@pytest.mark.parametrize("lang, pair", [("python", 0), ("cpp", 1)])
def test_keywords_dir_is_the_packages_argument(tmp_path: Path, lang: str, pair: int) -> None:
    from codebleu import calc_codebleu as package

    custom = tmp_path / "kw"
    custom.mkdir()
    (custom / f"{lang}.txt").write_text("return\nx\ny\n  if  \n", encoding="utf-8")
    refs, preds = [REFS[pair]], [PREDS[pair]]
    for folder in (_package_keywords(), custom):
        expected = package(refs, preds, lang, keywords_dir=folder)
        assert calc_codebleu(refs, preds, lang, keywords_dir=folder) == pytest.approx(expected, abs=1e-12)
        assert calc_codebleu(refs, preds, lang, keywords_dir=str(folder)) == pytest.approx(expected, abs=1e-12)
    default = calc_codebleu(refs, preds, lang)
    custom_result = calc_codebleu(refs, preds, lang, keywords_dir=custom)
    assert custom_result["weighted_ngram_match_score"] != default["weighted_ngram_match_score"]


def test_keywords_dir_reaches_the_worker_processes(tmp_path: Path) -> None:
    (tmp_path / "python.txt").write_text("return\nx\n", encoding="utf-8")
    refs, preds = [REFS[0]] * 240, [PREDS[0]] * 240
    one = calc_codebleu(refs, preds, "python", keywords_dir=tmp_path)
    assert calc_codebleu(refs, preds, "python", keywords_dir=tmp_path, workers=2) == pytest.approx(one, abs=1e-9)


def test_a_missing_keywords_dir_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        calc_codebleu(REFS[:1], PREDS[:1], "python", keywords_dir=tmp_path / "nowhere")


# -- code_bert_score.score ------------------------------------------------------------------------


def _kw() -> dict:
    return dict(model_type=bert_fixtures.minilm_path(), num_layers=6)


def test_return_hash_gives_scores_and_the_packages_hash() -> None:
    from code_bert_score.utils import get_hash

    from refscore.compat import score

    cands, refs = ["return a + b"], ["return x + y"]
    plain = score(cands, refs, **_kw())
    (p, r, f1, f3), code = score(cands, refs, return_hash=True, **_kw())
    assert [t.tolist() for t in (p, r, f1, f3)] == [t.tolist() for t in plain]
    assert code == get_hash(bert_fixtures.minilm_path(), 6, False, False, use_custom_baseline=False)
    _, code = score(cands, refs, idf=True, lang="python", rescale_with_baseline=True, return_hash=True, **_kw())
    assert code == get_hash(bert_fixtures.minilm_path(), 6, True, True, use_custom_baseline=False)


@pytest.mark.parametrize("option", [dict(all_layers=True), dict(no_punc=False), dict(chunk_overlap=0.25)])
def test_options_that_change_the_numbers_are_refused(option: dict) -> None:
    from refscore.compat import score

    with pytest.raises(NotImplementedError, match=next(iter(option))):
        score(["return a"], ["return b"], **option, **_kw())


def test_package_options_that_change_nothing_are_accepted_and_typos_are_not() -> None:
    from refscore.compat import score

    quiet = score(["return a"], ["return b"], verbose=False, nthreads=2, no_punc=True, chunk_overlap=0.5, **_kw())
    assert len(quiet) == 4
    with pytest.raises(TypeError):
        score(["return a"], ["return b"], rescale_baseline=True, **_kw())  # the package's TypeError too


@pytest.mark.parametrize("layers", [-1, 99, True, "6"])
def test_a_layer_the_model_lacks_is_refused_as_the_package_refuses_it(layers) -> None:
    """The package asserts ``0 <= num_layers <= model layers``; -1 was taken as the last layer and
    99 was a plain ValueError that ``except AssertionError`` missed."""
    from refscore.compat import score
    from refscore.errors import ScoreInputError

    with pytest.raises(ScoreInputError, match="num_layers"):
        score(["return a"], ["return b"], model_type=bert_fixtures.minilm_path(), num_layers=layers)


def test_a_prediction_without_references_is_one_clear_error() -> None:
    """``references=[[]]`` was ``ValueError: min() arg is an empty sequence`` from deep inside."""
    from refscore.errors import ScoreInputError

    with pytest.raises(ScoreInputError, match="prediction 1 has no reference"):
        calc_codebleu([[REFS[0]], []], PREDS, "python")


def test_a_candidate_without_references_is_one_clear_error() -> None:
    """``refs=[["x"], []]`` scored the second candidate 0.0 on every component, silently (the
    package fails with an IndexError)."""
    from refscore.compat import score
    from refscore.errors import ScoreInputError

    with pytest.raises(ScoreInputError, match="candidate 1 has no reference"):
        score(["x = 1", "y = 2"], [["x = 1"], []], **_kw())


@pytest.mark.parametrize("where", ["cands", "refs", "sources"])
def test_a_lone_surrogate_is_refused_not_scored_0(where: str) -> None:
    """A lone surrogate is no text: a candidate holding one scored 0.0, silently."""
    from refscore.compat import score
    from refscore.errors import ScoreInputError

    args = {"cands": ["x = 1", "y = 2"], "refs": ["x = 1", "y = 2"], "sources": ["one", "two"]}
    args[where] = [args[where][0], "y = '\udc00'"]
    with pytest.raises(ScoreInputError, match=r"lone surrogate \(U\+DC00 at character 5\)"):
        score(args["cands"], args["refs"], sources=args["sources"], **_kw())


@pytest.mark.parametrize("call", [
    lambda f: f(REFS[0], PREDS[0], "python"),  # same length: the package scores each character
    lambda f: f(REFS[0][:9], PREDS[0][:9], "python"),
    lambda f: f(REFS[:1], PREDS[0], "python"),
], ids=["both", "same-length", "predictions"])
def test_calc_codebleu_refuses_one_string_in_place_of_a_list(call) -> None:
    """``calc_codebleu(ref, pred, lang)`` scored each character as a prediction (the package
    does too, silently): a number for nothing the user meant."""
    from refscore.errors import ScoreInputError

    with pytest.raises(ScoreInputError, match="not one string"):
        call(calc_codebleu)


@pytest.mark.parametrize("where", ["cands", "refs", "sources"])
def test_score_refuses_one_string_in_place_of_a_list(where: str) -> None:
    """``score("return a", "return b")`` returned tensors of one score per character."""
    from refscore.compat import score
    from refscore.errors import ScoreInputError

    args = {"cands": ["return a + b"], "refs": ["return x + y"], "sources": ["add"]}
    args[where] = args[where][0]
    with pytest.raises(ScoreInputError, match=f"{where}.*not one string"):
        score(args["cands"], args["refs"], sources=args["sources"], **_kw())


def test_a_numpy_layer_number_is_a_layer_number() -> None:
    """``num_layers=np.int64(3)`` (a layer from a numpy grid) works in the package; RefScore
    refused it as "not a hidden layer number", in ``refscore.score(layer=)`` too."""
    import numpy as np

    import refscore
    from refscore.compat import score

    cands, refs = ["return a + b"], ["return x + y"]
    plain = score(cands, refs, model_type=bert_fixtures.minilm_path(), num_layers=3)
    numpy_layer = score(cands, refs, model_type=bert_fixtures.minilm_path(), num_layers=np.int64(3))
    package = bert_fixtures.load_oracle().score(cands, refs, model_type=bert_fixtures.minilm_path(),
                                                num_layers=np.int64(3))
    assert [t.tolist() for t in numpy_layer] == [t.tolist() for t in plain]
    assert [t.item() for t in numpy_layer] == pytest.approx([t.item() for t in package], abs=1e-5)
    row, = refscore.score(cands, refs, language="python", metrics=("codebertscore",), layer=np.int64(3))
    assert row.codebertscore_f1 == refscore.score(cands, refs, language="python", metrics=("codebertscore",),
                                                  layer=3)[0].codebertscore_f1


@pytest.mark.parametrize("lang, package_model", [("py", "microsoft/codebert-base-mlm"),
                                                 ("PY", "microsoft/codebert-base-mlm"),
                                                 ("C++", "neulab/codebert-cpp"),
                                                 ("JS", "neulab/codebert-javascript")])
def test_lang_picks_the_model_the_package_picks(lang: str, package_model: str) -> None:
    """The package looks ``lang.lower()`` up in its own table (python, javascript, js, c, cpp,
    c++, java; else codebert-base-mlm); RefScore read ``lang="py"`` as Python and would have
    scored with codebert-python (layer 11), not the package's codebert-base-mlm (layer 10)."""
    from code_bert_score.utils import lang2model

    from refscore.compat import score
    from refscore.embed.registry import local_model_path

    assert lang2model[lang.lower()] == package_model
    if local_model_path(package_model) is None:  # offline without it, both fail (test_compat_model_choice.py)
        with pytest.raises(OSError, match=f"^{package_model}, code_bert_score's model"):
            score([PREDS[0]], [REFS[0]], lang=lang)
    else:
        _, code = score([PREDS[0]], [REFS[0]], lang=lang, return_hash=True)
        assert code.startswith(f"{package_model}_L")
