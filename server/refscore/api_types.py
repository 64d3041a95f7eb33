"""The typed results of ``refscore.score`` (per-sample) and ``refscore.score_corpus`` (corpus), and
their table forms (list of dicts; pandas and Arrow when those libraries are installed)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .vocabulary import BERT_FIELDS, PACKAGE_KEYS

if TYPE_CHECKING:  # pragma: no cover
    from .scoring.report import ScoreReport

#: How several references of one candidate are combined, per metric: the choices and, first,
#: the default. ``max``: the best reference (CodeBLEU under the native rule: the reference whose
#: CodeBLEU is highest, with its components; CodeBERTScore per component, as
#: ``code_bert_score.score`` does; chrF and TSED the best reference's score, as sacrebleu does);
#: ``pooled``: CodeBLEU's multi-reference statistics (BLEU's clipped counts over all references,
#: syntax and dataflow matches summed over them), as ``codebleu.calc_codebleu`` does: the default,
#: and the only choice besides ``mean``, under the compat rule (``codebleu_default``); ``mean``: the
#: mean over the references (per component). ``inputs``: the combined RefScore number is computed
#: from its inputs as aggregated by their defaults.
AGGREGATIONS: dict[str, tuple[str, ...]] = {
    "codebleu": ("max", "pooled", "mean"),
    "codebertscore": ("max", "mean"),
    "chrf": ("max", "mean"),
    "tsed": ("max", "mean"),
    "refscore": ("inputs",),
    "behaviour": ("max",),
}


def codebleu_default(rule: str) -> str:
    """How the pipeline combines CodeBLEU's references under ``rule``: the best reference
    (native: adding an acceptable reference never lowers a score) or the package's pooled
    statistics (compat)."""
    return "pooled" if rule == "compat" else "max"


#: The ``codebleu`` package's keys (drop-in: ``SampleScore`` and ``compat.calc_codebleu`` keep them).
CODEBLEU_KEYS = tuple(PACKAGE_KEYS.values())
BERT_KEYS = BERT_FIELDS


@dataclass(frozen=True)
class MetricValues:
    """The numbers every result has (None where the metric was not asked for or failed). CodeBLEU's
    numbers sit under its rule's names: the package's keys (``codebleu.calc_codebleu``) for the
    package's rule only, ``codebleu_native`` and the components' own names for RefScore's rule
    (``vocabulary.codebleu_name``); CodeBERTScore's are prefixed."""

    language: str
    refscore: float | None = None
    #: CodeBLEU under the package's rule (``codebleu_rule="compat"``), with the package's keys
    codebleu: float | None = None
    ngram_match_score: float | None = None
    weighted_ngram_match_score: float | None = None
    syntax_match_score: float | None = None
    dataflow_match_score: float | None = None
    #: CodeBLEU under RefScore's rule (``codebleu_rule="native"``, the default), with its components
    codebleu_native: float | None = None
    ngram_match: float | None = None
    weighted_ngram_match: float | None = None
    syntax_match: float | None = None
    dataflow_match: float | None = None
    codebertscore_precision: float | None = None
    codebertscore_recall: float | None = None
    codebertscore_f1: float | None = None
    codebertscore_f3: float | None = None
    chrf: float | None = None
    tsed: float | None = None
    #: the share of inputs on which the candidate did what the reference did (``behaviour``)
    behaviour: float | None = None


@dataclass(frozen=True)
class SampleScore(MetricValues):
    """Per-sample scores of one candidate (``errors`` says why a metric is missing)."""

    references: int = 1
    #: metric -> how its references were combined (see ``AGGREGATIONS``)
    aggregation: tuple[tuple[str, str], ...] = ()
    #: metric -> signature (what made the number: rule, model, layer, versions)
    signatures: tuple[tuple[str, str], ...] = ()
    errors: tuple[str, ...] = ()
    #: the pipeline's full report (token alignments, explanations); not part of equality or dicts
    report: "ScoreReport | None" = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """A flat, JSON-ready row (aggregation and signatures as objects, no ``report``)."""
        out: dict[str, Any] = {}
        for item in fields(self):
            if item.name == "report":
                continue
            value = getattr(self, item.name)
            out[item.name] = dict(value) if item.name in ("aggregation", "signatures") else (
                list(value) if item.name == "errors" else value)
        return out


@dataclass(frozen=True)
class CorpusScore(MetricValues):
    """Corpus-level scores of a list of candidates. ``codebleu`` and its components are corpus
    statistics (one CodeBLEU over the whole corpus, ``codebleu.calc_codebleu``'s number);
    CodeBERTScore, chrF, TSED and RefScore are means of the per-sample scores (``samples``)."""

    samples: tuple[SampleScore, ...] = ()
    #: metric -> how the corpus number is made from the samples ("corpus statistics" or
    #: "mean of per-sample")
    corpus_aggregation: tuple[tuple[str, str], ...] = ()
    signatures: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready corpus numbers (the samples under ``samples``)."""
        out: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "samples":
                value = [s.to_dict() for s in value]
            elif item.name in ("corpus_aggregation", "signatures"):
                value = dict(value)
            out[item.name] = value
        return out


def to_dicts(results: Iterable[SampleScore]) -> list[dict[str, Any]]:
    """One flat dict per sample (``SampleScore.to_dict``)."""
    return [result.to_dict() for result in results]


def _table_rows(results: Iterable[SampleScore]) -> list[dict[str, Any]]:
    """Rows for a table: mappings become ``<name>.<metric>`` columns, errors one string."""
    rows = []
    for row in to_dicts(results):
        for name in ("aggregation", "signatures"):
            for metric, value in row.pop(name).items():
                row[f"{name}.{metric}"] = value
        row["errors"] = "; ".join(row["errors"])
        rows.append(row)
    return rows


def to_pandas(results: Iterable[SampleScore]) -> Any:
    """A pandas DataFrame, one row per sample (needs pandas)."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError("refscore.to_pandas needs pandas: pip install pandas") from error
    return pandas.DataFrame(_table_rows(results))


def to_arrow(results: Iterable[SampleScore]) -> Any:
    """A pyarrow Table, one row per sample (needs pyarrow)."""
    try:
        import pyarrow
    except ImportError as error:
        raise ImportError("refscore.to_arrow needs pyarrow: pip install pyarrow") from error
    return pyarrow.Table.from_pylist(_table_rows(results))


def mean_of(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None (None when none is)."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def pick(mapping: Mapping[str, Any] | None, key: str) -> Any:
    """``mapping[key]`` or None."""
    return None if mapping is None else mapping.get(key)
