"""One signature format for every score (sacrebleu style): ``metric|key:value|...|version:X``.

A signature says exactly how a number was made (metric, language or model, settings, RefScore
version), so two numbers can be compared or a result reproduced. Both CodeBLEU and CodeBERTScore
build theirs here; the version key is the same for both.
"""

from __future__ import annotations

from typing import Iterable

VERSION_KEY = "version"


def yes_no(flag: bool) -> str:
    """``yes``/``no``, as signatures spell booleans."""
    return "yes" if flag else "no"


def build_signature(metric: str, fields: Iterable[tuple[str, object]]) -> str:
    """``metric|key:value|...|version:<refscore version>`` (fields in the order given)."""
    from .. import __version__

    parts = [metric, *(f"{key}:{value}" for key, value in fields), f"{VERSION_KEY}:{__version__}"]
    return "|".join(parts)


def parse_signature(signature: str) -> tuple[str, dict[str, str]]:
    """The metric name and the ``key: value`` fields of a signature (for tests and tools)."""
    metric, *rest = signature.split("|")
    fields: dict[str, str] = {}
    for part in rest:
        key, _, value = part.partition(":")
        fields[key] = value
    return metric, fields
