"""lm-evaluation-harness: the three registered metrics run a tiny task end to end on fixed
completions (a local model that answers from a table, no generation) and give the numbers of
``refscore score --json`` (per sample) and of the codebleu package (corpus).

lm_eval comes with the test extra (and ``refscore[harness]``); outside CI this file skips without it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

if os.environ.get("CI") == "true":  # the test extra installs it: in CI a missing harness is a failure
    import lm_eval  # noqa: F401
else:
    pytest.importorskip("lm_eval", reason="lm-evaluation-harness is not installed (pip install -e '.[test]')")

from lm_eval.api.model import LM  # noqa: E402

from refscore.compat import calc_codebleu  # noqa: E402
from tests.support.score_json import score_pairs_json  # noqa: E402

os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lm-eval"
COMPLETIONS = {"add": "    return b + a\n", "is_even": "    return not n % 2\n",
               "total": "    acc = 0\n    for x in values:\n        acc = acc + x\n    return acc\n"}


class FixedCompletions(LM):
    """Answers each prompt with a fixed completion (by the function it defines)."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        answers = []
        for request in requests:
            prompt = request.arguments[0]
            name = prompt.split("def ", 1)[1].split("(", 1)[0]
            answers.append(COMPLETIONS[name])
        return answers

    def loglikelihood(self, requests, disable_tqdm: bool = False):  # pragma: no cover - not used
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):  # pragma: no cover
        raise NotImplementedError


def docs() -> list[dict]:
    return [json.loads(line) for line in (EXAMPLE / "refscore_example.jsonl").read_text().splitlines()]


def name_of(doc: dict) -> str:
    return doc["prompt"].split("def ", 1)[1].split("(", 1)[0]


def test_tiny_task_end_to_end_gives_the_cli_numbers(tmp_path: Path) -> None:
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    task_dir = tmp_path / "task"
    shutil.copytree(EXAMPLE, task_dir)
    config = (task_dir / "refscore_example.yaml").read_text()
    (task_dir / "refscore_example.yaml").write_text(
        config.replace("examples/lm-eval/refscore_example.jsonl", str(task_dir / "refscore_example.jsonl")))
    results = simple_evaluate(model=FixedCompletions(), tasks=["refscore_example"],
                              task_manager=TaskManager(include_path=str(task_dir)), log_samples=False)
    numbers = results["results"]["refscore_example"]
    references = [d["reference"] for d in docs()]
    predictions = [COMPLETIONS[name_of(d)] for d in docs()]
    rows = score_pairs_json(tmp_path, references, predictions)
    corpus = calc_codebleu(references, predictions, "python")["codebleu"]
    assert numbers["refscore_codebleu,none"] == pytest.approx(corpus, abs=1e-12)
    # the native rule has a name of its own: `refscore score`'s per-sample codebleu (native by default)
    assert numbers["refscore_codebleu_native,none"] == pytest.approx(
        sum(r["codebleu_native"]["codebleu_native"] for r in rows) / len(rows), abs=1e-12)
    assert numbers["refscore_codebertscore,none"] == pytest.approx(
        sum(r["codebertscore"]["f1"] for r in rows) / len(rows), abs=1e-6)
    assert numbers["refscore_combined,none"] == pytest.approx(
        sum(r["refscore"]["score"] for r in rows) / len(rows), abs=1e-6)
    # registered through the harness's own registry, by name
    from lm_eval.api.registry import get_metric, is_higher_better

    assert get_metric("refscore_combined") is not None and is_higher_better("refscore_codebleu") is True


def test_a_task_with_a_list_of_references_is_one_clear_error(tmp_path: Path) -> None:
    """A ``doc_to_target`` that gives a list makes lm-eval call the metric once per reference and
    keep only ``1.0 if any(...)``, so the aggregation got floats and failed with "TypeError: cannot
    unpack non-iterable float object". Now it names the cause and the way out."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    task_dir = tmp_path / "task"
    shutil.copytree(EXAMPLE, task_dir)
    lines = [json.dumps({**d, "references": [d["reference"], d["reference"].replace("return", "return ")]})
             for d in docs()]
    (task_dir / "refscore_example.jsonl").write_text("\n".join(lines) + "\n")
    config = (task_dir / "refscore_example.yaml").read_text()
    config = config.replace("examples/lm-eval/refscore_example.jsonl", str(task_dir / "refscore_example.jsonl"))
    config = config.replace("doc_to_target: reference", "doc_to_target: references")
    config = config.split("  - metric: refscore_codebertscore")[0] + "metadata:\n  version: 1.0\n"
    (task_dir / "refscore_example.yaml").write_text(config)
    with pytest.raises(ValueError) as error:
        simple_evaluate(model=FixedCompletions(), tasks=["refscore_example"],
                        task_manager=TaskManager(include_path=str(task_dir)), log_samples=False)
    message = str(error.value)
    assert message.startswith("refscore_codebleu: lm-eval gave this metric 1.0"), message
    assert "list of references" in message and "refscore grade --jsonl" in message
