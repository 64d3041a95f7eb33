"""The drop-in ``refscore.compat.score`` never switches models behind the caller's back (issue 46,
item 3): with only ``lang`` given it uses code-bert-score's model for that language from the local
Hugging Face cache, or, when that model is not cached, fails as the package fails offline (an
``OSError``, one clear line); RefScore's embedded all-MiniLM-L6-v2 only when asked for by name.
It used to score with MiniLM and only warn."""

from __future__ import annotations

import warnings

import pytest

from tests import bert_fixtures as bf

pytest.importorskip("torch")
pytest.importorskip("transformers")

CANDS = ["def f(x):\n    return x + 1"]
REFS = ["def f(a):\n    return a + 1"]


def _package_model(lang: str) -> str:
    from code_bert_score.utils import lang2model

    return lang2model[lang]


@pytest.mark.parametrize("lang", ["python", "java"])
def test_lang_without_its_cached_model_fails_as_the_package_does(lang: str) -> None:
    from refscore.compat import score
    from refscore.compat.bertscore_api import PackageModelNotCachedError
    from refscore.embed.registry import ModelNotAvailableError, local_model_path

    model = _package_model(lang)
    if local_model_path(model) is not None:
        pytest.skip(f"{model} is in this machine's Hugging Face cache")
    with pytest.raises(OSError) as package_error:  # the oracle, offline (bert_fixtures sets HF_HUB_OFFLINE)
        bf.load_oracle().score(CANDS, REFS, lang=lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning-and-carry-on any more
        with pytest.raises(OSError) as ours:
            score(CANDS, REFS, lang=lang)
    assert isinstance(package_error.value, OSError)
    assert isinstance(ours.value, (PackageModelNotCachedError, ModelNotAvailableError))
    message = str(ours.value)
    assert "\n" not in message and message.startswith(f"{model}, code_bert_score's model for lang={lang!r}")
    assert f"huggingface-cli download {model}" in message and "EMBEDDED_MODEL" in message


def test_the_embedded_model_only_when_asked_for_by_name() -> None:
    from refscore.compat import EMBEDDED_MODEL, score

    by_name, code = score(CANDS, REFS, model_type=EMBEDDED_MODEL, return_hash=True)
    by_folder = score(CANDS, REFS, model_type=bf.minilm_path(), num_layers=6)
    assert code == "all-MiniLM-L6-v2_L6_no-idf"
    assert [t.item() for t in by_name] == [t.item() for t in by_folder]
    package = bf.load_oracle().score(CANDS, REFS, model_type=bf.minilm_path(), num_layers=6)
    assert [t.item() for t in by_name] == pytest.approx([t.item() for t in package], abs=1e-5)
