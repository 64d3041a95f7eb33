"""CodeBERTScore as a Hugging Face ``evaluate`` metric (load it by path:
``evaluate.load(refscore.harness.evaluate_module_path("codebertscore"))``)."""

import datasets
import evaluate

from refscore.harness.metrics import CODEBERTSCORE_CITATION, CODEBERTSCORE_DESCRIPTION, INPUTS_DESCRIPTION, codebertscore_values

_FEATURES = [
    datasets.Features({"predictions": datasets.Value("string"),
                       "references": datasets.Sequence(datasets.Value("string"))}),
    datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
]


@evaluate.utils.file_utils.add_start_docstrings(CODEBERTSCORE_DESCRIPTION, INPUTS_DESCRIPTION)
class RefscoreCodebertscore(evaluate.Metric):
    """CodeBERTScore (RefScore)."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric", description=CODEBERTSCORE_DESCRIPTION, citation=CODEBERTSCORE_CITATION,
            inputs_description=INPUTS_DESCRIPTION, features=_FEATURES, license="MIT",
            codebase_urls=["https://github.com/refscore/refscore"],
            reference_urls=["https://arxiv.org/abs/2302.05527"])

    def _compute(self, predictions, references, lang="python", **options):
        return codebertscore_values(predictions, references, lang, **options)
