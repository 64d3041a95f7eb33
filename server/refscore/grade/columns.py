"""The columns of one run's reports, found in pass one over its rows.

* The score columns of metrics computed only on request (``chrf``, ``tsed``, ``crystalbleu``,
  ``behaviour`` and their signatures; behaviour's inputs, agreed and note columns too) are there
  only when ``--metrics`` names them.
* Every field a JSONL/Parquet row had besides the known ones (``passed``, ``task_id``...) follows
  the report's own columns, in the order the rows first show them, with its JSON type: JSON keeps
  values as they were; Parquet types a column by its values (all integers: int64, numbers:
  float64, true/false: bool, strings: string; mixed or nested values, and integers beyond int64:
  their JSON text).
* ``id`` keeps an integer input id as an integer (Parquet: int64 when every id is one and none
  repeats; else every id is a string).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from ..vocabulary import CODEBLEU_NAMES, codebleu_name
from .rows import COLUMNS, JSON_ONLY_COLUMNS, OPTIONAL_METRIC_COLUMNS, SCORE_COLUMNS, SIMILARITY_COLUMN


def report_columns(metrics: Iterable[str], extra: Sequence[str] = (), similarity: bool = False,
                   codebleu_rule: str = "native") -> tuple[str, ...]:
    """The report's columns for a run computing ``metrics`` (and comparing students, ``similarity``),
    then the passed-through fields. CodeBLEU's column is its rule's (``codebleu`` for the package's
    rule only, ``codebleu_native`` for RefScore's), never both."""
    wanted = set(metrics)
    dropped = {c for metric, cols in OPTIONAL_METRIC_COLUMNS.items() if metric not in wanted for c in cols}
    dropped.update(name for name in CODEBLEU_NAMES.values() if name != codebleu_name(codebleu_rule))
    if not similarity:
        dropped.add(SIMILARITY_COLUMN)
    return (*(c for c in COLUMNS if c not in dropped), *extra)


#: The integers Parquet's int64 holds; a larger one is written as its JSON text.
INT64 = range(-(2 ** 63), 2 ** 63)


def _is_int64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in INT64


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if value in INT64 else "json"
    if isinstance(value, float):
        return "float"
    return "str" if isinstance(value, str) else "json"


class RunColumns:
    """Pass one's record of the rows' columns and the types of their passed-through fields."""

    def __init__(self, metrics: Iterable[str], similarity: bool = False, codebleu_rule: str = "native") -> None:
        self.metrics = tuple(metrics)
        self.similarity = similarity
        self.codebleu_rule = codebleu_rule
        self.kinds: dict[str, set[str]] = {}  # extra column -> kinds of its non-null values
        self.int_ids = True

    def add(self, row: dict[str, Any]) -> None:
        """Note one row's extra columns and id."""
        self.int_ids = self.int_ids and _is_int64(row.get("id"))
        for key, value in row.items():
            if key not in COLUMNS and key not in JSON_ONLY_COLUMNS:
                kinds = self.kinds.setdefault(key, set())
                if value is not None:
                    kinds.add(_kind(value))

    @property
    def columns(self) -> tuple[str, ...]:
        return report_columns(self.metrics, tuple(self.kinds), self.similarity, self.codebleu_rule)

    def parquet_kind(self, column: str) -> str:
        """``int``, ``float``, ``bool``, ``str`` or ``json`` (written as JSON text) for an extra column."""
        kinds = self.kinds.get(column, set())
        if kinds in ({"int"}, {"float"}, {"bool"}, {"str"}):
            return next(iter(kinds))
        return "float" if kinds == {"int", "float"} else ("str" if not kinds else "json")

    def parquet_schema(self, unique_ids: bool = True) -> Any:
        """The Parquet columns of this run (see the module docstring)."""
        arrow = {"int": "int64", "float": "float64", "bool": "bool_", "str": "string", "json": "string"}
        extra = {c: arrow[self.parquet_kind(c)] for c in self.kinds}
        return parquet_schema(self.columns, extra, int_ids=self.int_ids and unique_ids)

    def parquet_row(self, row: dict[str, Any], schema: Any) -> dict[str, Any]:
        """``row``'s values as the schema holds them."""
        out = {c: row.get(c) for c in schema.names}
        if str(schema.field("id").type) == "string" and out.get("id") is not None:
            out["id"] = str(out["id"])
        for column in self.kinds:
            value, kind = out.get(column), self.parquet_kind(column)
            if value is not None and kind == "json":
                out[column] = json.dumps(value, ensure_ascii=False)
            elif value is not None and kind == "float":
                out[column] = float(value)
        return out


def parquet_schema(columns: Sequence[str] = COLUMNS, extra: dict[str, str] | None = None,
                   int_ids: bool = False) -> Any:
    """Typed Parquet columns: floats for scores, lists for warnings and errors, ``extra``'s
    arrow type names for the passed-through fields, strings otherwise."""
    import pyarrow as pa

    types = {"codebertscore_layer": pa.int64(), "codebertscore_reference": pa.int64(), "behaviour_inputs": pa.int64(), "behaviour_agreed": pa.int64(),
             "cached": pa.bool_(), "late": pa.bool_(),
             "warnings": pa.list_(pa.string()), "errors": pa.list_(pa.string()), SIMILARITY_COLUMN: pa.list_(pa.string()),
             **{c: pa.float64() for c in SCORE_COLUMNS}, **({"id": pa.int64()} if int_ids else {}),
             **{c: getattr(pa, kind)() for c, kind in (extra or {}).items()}}
    return pa.schema([(c, types.get(c, pa.string())) for c in columns])
