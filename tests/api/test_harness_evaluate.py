"""The ``evaluate`` modules: loaded offline by path, MetricInfo filled, and
``evaluate.load(path).compute(predictions=..., references=...)`` gives ``refscore score --json``'s
numbers (real tree-sitter, the embedded model)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if os.environ.get("CI") == "true":  # the test extra installs it: in CI a missing module is a failure
    import evaluate
else:
    evaluate = pytest.importorskip("evaluate", reason="evaluate is in the test extra: pip install -e '.[test]'")

from refscore.compat import calc_codebleu  # noqa: E402
from refscore.harness import EVALUATE_MODULES, evaluate_module_path  # noqa: E402
from tests.support.score_json import score_pairs_json  # noqa: E402

os.environ.update(HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1")
REFERENCES = ["def add(a, b):\n    return a + b\n", "def total(values):\n    result = 0\n    for v in values:\n"
              "        result += v\n    return result\n"]
PREDICTIONS = ["def add(x, y):\n    return x + y\n", "def total(values):\n    return sum(values)\n"]


@pytest.fixture(scope="module")
def cli_rows(tmp_path_factory) -> list[dict]:
    return score_pairs_json(tmp_path_factory.mktemp("cli"), REFERENCES, PREDICTIONS)


def load(name: str, tmp_path: Path):
    return evaluate.load(evaluate_module_path(name), cache_dir=str(tmp_path))


@pytest.mark.parametrize("name", EVALUATE_MODULES)
def test_module_loads_offline_by_path_with_metric_info(name: str, tmp_path: Path) -> None:
    path = Path(evaluate_module_path(name))
    assert path.is_file() and path.stem == f"refscore_{name}"  # never a name that shadows a package
    module = load(name, tmp_path)
    info = module.info
    assert info.description.strip() and "@" in info.citation and info.inputs_description.strip()
    assert {"predictions", "references"} <= set(info.features[0]) and len(info.features) == 2


def test_codebleu_module_gives_the_package_corpus_and_the_cli_per_sample(cli_rows, tmp_path: Path) -> None:
    values = load("codebleu", tmp_path).compute(predictions=PREDICTIONS, references=REFERENCES, lang="python")
    expected = calc_codebleu(REFERENCES, PREDICTIONS, "python")
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, abs=1e-12), key
    # the package's rule per sample under its name; the native rule (the CLI's default) under its own
    assert values["codebleu_per_sample"] == pytest.approx(
        [calc_codebleu([r], [p], "python")["codebleu"] for r, p in zip(REFERENCES, PREDICTIONS)], abs=1e-12)
    assert values["codebleu_native_per_sample"] == pytest.approx([r["codebleu_native"]["codebleu_native"] for r in cli_rows],
                                                                 abs=1e-12)
    assert "rule:compat" in values["signature"] and "rule:native" in values["native_signature"]
    # references as lists of strings (the second feature set) give the same numbers
    nested = load("codebleu", tmp_path).compute(predictions=PREDICTIONS, references=[[r] for r in REFERENCES])
    assert nested["codebleu"] == pytest.approx(values["codebleu"], abs=1e-12)


def test_codebleu_means_the_package_rule_and_the_native_rule_has_its_own_name(tmp_path: Path) -> None:
    """Issue 46, item 4: a dummy answer scores 0.250 under the package's rule (a missing dataflow
    match earns full credit) and 0 under RefScore's; ``codebleu*`` keys always hold the former. The
    old ``codebleu_rule`` argument is still taken, with a FutureWarning, and changes no key."""
    reference = "def add(a, b):\n    return a + b\n"
    module = load("codebleu", tmp_path)
    values = module.compute(predictions=["lol"], references=[reference], lang="python")
    package = calc_codebleu([reference], ["lol"], "python")["codebleu"]
    assert package == values["codebleu"] == values["codebleu_per_sample"][0] == pytest.approx(0.25)
    assert values["codebleu_native_per_sample"] == [0.0]
    with pytest.warns(FutureWarning, match="codebleu_native_per_sample"):
        old = module.compute(predictions=["lol"], references=[reference], lang="python", codebleu_rule="native")
    assert old["codebleu_per_sample"] == values["codebleu_per_sample"]


def test_codebertscore_and_combined_modules_give_the_cli_numbers(cli_rows, tmp_path: Path) -> None:
    bert = load("codebertscore", tmp_path).compute(predictions=PREDICTIONS, references=REFERENCES, lang="python")
    for key in ("precision", "recall", "f1", "f3"):
        assert bert[key] == pytest.approx([r["codebertscore"][key] for r in cli_rows], abs=1e-6), key
    assert bert["signature"] == cli_rows[0]["codebertscore"]["signature"]
    combined = load("combined", tmp_path).compute(predictions=PREDICTIONS, references=REFERENCES, lang="py")
    assert combined["refscore"] == pytest.approx([r["refscore"]["score"] for r in cli_rows], abs=1e-6)
    assert combined["refscore_mean"] == pytest.approx(sum(combined["refscore"]) / 2)


def test_bad_language_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown language"):
        load("codebleu", tmp_path).compute(predictions=PREDICTIONS, references=REFERENCES, lang="klingon")


def test_behaviour_module_gives_the_cli_numbers(tmp_path: Path) -> None:
    import json
    import shutil
    import subprocess
    import sys

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    values = load("behaviour", tmp_path).compute(predictions=PREDICTIONS, references=REFERENCES, lang="python")
    expected = []
    for index, (reference, prediction) in enumerate(zip(REFERENCES, PREDICTIONS)):
        (tmp_path / f"r{index}.py").write_text(reference)
        (tmp_path / f"p{index}.py").write_text(prediction)
        out = subprocess.run([sys.executable, "-m", "refscore", "score", str(tmp_path / f"r{index}.py"),
                              str(tmp_path / f"p{index}.py"), "--metrics", "behaviour", "--json", "--no-daemon"],
                             capture_output=True, text=True, timeout=120)
        expected.append(json.loads(out.stdout)["behaviour"]["agreement"])
    assert values["behaviour"] == expected and all(v == 1.0 for v in expected)
    assert values["behaviour_mean"] == 1.0 and values["agrees_everywhere"] == 1.0
    assert values["signature"].startswith("behaviour|lang:python|") and values["not_run"] == [None, None]
