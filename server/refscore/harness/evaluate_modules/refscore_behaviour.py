"""Behaviour agreement as a Hugging Face ``evaluate`` metric (load it by path:
``evaluate.load(refscore.harness.evaluate_module_path("behaviour"))``)."""

import datasets
import evaluate

from refscore.harness.metrics import BEHAVIOUR_CITATION, BEHAVIOUR_DESCRIPTION, INPUTS_DESCRIPTION, behaviour_values

_FEATURES = [
    datasets.Features({"predictions": datasets.Value("string"),
                       "references": datasets.Sequence(datasets.Value("string"))}),
    datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
]


@evaluate.utils.file_utils.add_start_docstrings(BEHAVIOUR_DESCRIPTION, INPUTS_DESCRIPTION)
class RefscoreBehaviour(evaluate.Metric):
    """Behaviour agreement with the reference (RefScore)."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric", description=BEHAVIOUR_DESCRIPTION, citation=BEHAVIOUR_CITATION,
            inputs_description=INPUTS_DESCRIPTION, features=_FEATURES, license="MIT",
            codebase_urls=["https://github.com/refscore/refscore"],
            reference_urls=[])

    def _compute(self, predictions, references, lang="python", **options):
        return behaviour_values(predictions, references, lang, **options)
