"""CodeBLEU as a Hugging Face ``evaluate`` metric (load it by path:
``evaluate.load(refscore.harness.evaluate_module_path("codebleu"))``)."""

import datasets
import evaluate

from refscore.harness.metrics import CODEBLEU_CITATION, CODEBLEU_DESCRIPTION, INPUTS_DESCRIPTION, codebleu_values

_FEATURES = [
    datasets.Features({"predictions": datasets.Value("string"),
                       "references": datasets.Sequence(datasets.Value("string"))}),
    datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
]


@evaluate.utils.file_utils.add_start_docstrings(CODEBLEU_DESCRIPTION, INPUTS_DESCRIPTION)
class RefscoreCodebleu(evaluate.Metric):
    """CodeBLEU (RefScore)."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric", description=CODEBLEU_DESCRIPTION, citation=CODEBLEU_CITATION,
            inputs_description=INPUTS_DESCRIPTION, features=_FEATURES, license="MIT",
            codebase_urls=["https://github.com/refscore/refscore"],
            reference_urls=["https://arxiv.org/abs/2009.10297"])

    def _compute(self, predictions, references, lang="python", **options):
        return codebleu_values(predictions, references, lang, **options)
