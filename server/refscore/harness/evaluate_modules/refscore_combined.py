"""The combined RefScore number as a Hugging Face ``evaluate`` metric (load it by path:
``evaluate.load(refscore.harness.evaluate_module_path("combined"))``)."""

import datasets
import evaluate

from refscore.harness.metrics import COMBINED_CITATION, COMBINED_DESCRIPTION, INPUTS_DESCRIPTION, combined_values

_FEATURES = [
    datasets.Features({"predictions": datasets.Value("string"),
                       "references": datasets.Sequence(datasets.Value("string"))}),
    datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
]


@evaluate.utils.file_utils.add_start_docstrings(COMBINED_DESCRIPTION, INPUTS_DESCRIPTION)
class RefscoreCombined(evaluate.Metric):
    """The combined RefScore number (RefScore)."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric", description=COMBINED_DESCRIPTION, citation=COMBINED_CITATION,
            inputs_description=INPUTS_DESCRIPTION, features=_FEATURES, license="MIT",
            codebase_urls=["https://github.com/refscore/refscore"],
            reference_urls=["https://arxiv.org/abs/2302.05527"])

    def _compute(self, predictions, references, lang="python", **options):
        return combined_values(predictions, references, lang, **options)
