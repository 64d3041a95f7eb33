"""A rubric: how a submission's score becomes points, per problem (read from TOML, checked here).

::

    metric = "refscore"        # the score the points come from (default: the combined RefScore number)
    fallback = "codebleu"      # where the metric was not computed (e.g. CodeBLEU-only runs)
    points = 10                # each problem's points unless it says otherwise
    bands = { ">= 0.85" = 10, ">= 0.6" = 7, ">= 0.3" = 3 }   # else 0
    adjustments = "adjustments.csv"   # the teacher's manual adjustments (kept across re-grades)
    pass = 0.5                 # share of the total a student needs to pass (GitHub Classroom exit code)

    [problem.running_max]      # a per-problem override of any key above
    points = 20
    metric = "codebleu"
    linear = { floor = 0.3, ceiling = 0.9 }   # 0 at or below floor, all points at or above ceiling

Bands map a score to points (the first band the score reaches, in the order written; a band's
points may be a share of the problem's points with ``"70%"``). ``linear`` scales between a floor
and a ceiling; ``step = 0.5`` rounds linear points down to a multiple. The rubric is applied to
the rows of a run after scoring: changing it never rescores.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from ...errors import InputFileError
from ...safe_read import read_settings_text

#: The score columns a rubric may name (``rows.SCORE_COLUMNS``), checked when the rubric is read.
DEFAULT_METRIC = "refscore"
DEFAULT_FALLBACK = "codebleu"
DEFAULT_POINTS = 10.0
DEFAULT_PASS = 0.5
_BAND = re.compile(r"^\s*(>=|>)\s*([0-9]*\.?[0-9]+)\s*$")
_KEYS = frozenset({"metric", "fallback", "points", "bands", "linear", "step", "adjustments", "pass", "problem",
                   "title"})
_PROBLEM_KEYS = frozenset({"metric", "fallback", "points", "bands", "linear", "step", "title"})


class RubricError(InputFileError):
    """A rubric file that cannot be used (exit 3, one line naming the file and the key)."""


def shown_score(score: float, thresholds: tuple[float, ...], places: int = 3) -> str:
    """``score`` to ``places`` decimals, or to as many more as it takes for the text to stay on
    the side of every threshold the score is on: 0.5996 under a band ``>= 0.6`` reads ``0.5996``,
    not ``0.600``, beside the words ``below 0.6``."""
    for shown_places in range(places, 16):
        text = f"{score:.{shown_places}f}"
        shown = float(text)
        if all((shown > t) == (score > t) and (shown < t) == (score < t) for t in thresholds):
            return text
    return repr(score)


@dataclass(frozen=True)
class Band:
    """Points for a score at or above (``inclusive``) or above ``threshold``."""

    threshold: float
    inclusive: bool
    points: float

    def reached(self, score: float) -> bool:
        return score >= self.threshold if self.inclusive else score > self.threshold

    def label(self) -> str:
        return f"{'>=' if self.inclusive else '>'} {self.threshold:g}"


@dataclass(frozen=True)
class Scheme:
    """One problem's rule: its points, metric and bands or linear scale."""

    points: float = DEFAULT_POINTS
    metric: str = DEFAULT_METRIC
    fallback: str | None = DEFAULT_FALLBACK
    bands: tuple[Band, ...] = ()
    floor: float | None = None  # linear: 0 points at or below
    ceiling: float | None = None  # linear: all points at or above
    step: float | None = None
    title: str | None = None

    @property
    def thresholds(self) -> tuple[float, ...]:
        """The scores this rule compares a score with (its bands', or its floor and ceiling)."""
        if self.floor is not None and self.ceiling is not None:
            return self.floor, self.ceiling
        return tuple(band.threshold for band in self.bands)

    def points_for(self, score: float) -> tuple[float, str]:
        """The points a score earns and the rule that gave them (in words)."""
        if self.floor is not None and self.ceiling is not None:
            share = 0.0 if score <= self.floor else 1.0 if score >= self.ceiling else \
                (score - self.floor) / (self.ceiling - self.floor)
            points = share * self.points
            if self.step:
                points = math.floor(points / self.step + 1e-9) * self.step
            return round(points, 2), f"linear {self.floor:g}..{self.ceiling:g}"
        for band in self.bands:
            if band.reached(score):
                return band.points, band.label()
        return 0.0, f"below {self.bands[-1].label()[2:].strip() if self.bands else 'every band'}"


@dataclass(frozen=True)
class Rubric:
    """The default scheme, per-problem overrides and the run-wide settings."""

    default: Scheme
    problems: Mapping[str, Scheme] = field(default_factory=dict)
    adjustments: Path | None = None
    pass_share: float = DEFAULT_PASS
    source: Path | None = None

    def scheme(self, problem: str | None) -> Scheme:
        """The scheme of ``problem`` (the default where the rubric names none)."""
        return self.problems.get(problem or "", self.default)

    def max_total(self, problems: list[str]) -> float:
        """The points a student can earn on ``problems``."""
        return sum(self.scheme(p).points for p in problems)


def load_rubric(path: str | Path, metrics: tuple[str, ...] | None = None) -> Rubric:
    """Read and check a rubric TOML file; ``metrics``: the score columns a run computes (a rubric
    naming another one is refused)."""
    path = Path(path)
    try:
        data = tomllib.loads(read_settings_text(path, "the rubric"))
    except InputFileError as error:
        raise RubricError(str(error)) from None
    except OSError as error:
        raise RubricError(f"{path}: cannot read the rubric ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise RubricError(f"{path}: the rubric is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise RubricError(f"{path}: not valid TOML ({error})") from None
    return rubric_from_data(data, path, metrics)


def rubric_from_data(data: Mapping[str, Any], path: Path, metrics: tuple[str, ...] | None = None) -> Rubric:
    """A checked ``Rubric`` from parsed TOML."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise RubricError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    default = _scheme(data, Scheme(), path, "the rubric", metrics)
    problems: dict[str, Scheme] = {}
    table = data.get("problem", {})
    if not isinstance(table, dict):
        raise RubricError(f"{path}: 'problem' must be tables ([problem.NAME])")
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise RubricError(f"{path}: problem {name!r} must be a table ([problem.{name}])")
        unknown = sorted(set(entry) - _PROBLEM_KEYS)
        if unknown:
            raise RubricError(f"{path}: problem {name!r}: unknown key {unknown[0]!r}")
        problems[str(name)] = _scheme(entry, default, path, f"problem {name!r}", metrics)
    share = data.get("pass", DEFAULT_PASS)
    if not _number(share) or not 0 <= share <= 1:
        raise RubricError(f"{path}: 'pass' must be a share of the total between 0 and 1 (got {share!r})")
    adjustments = data.get("adjustments")
    if adjustments is not None and not isinstance(adjustments, str):
        raise RubricError(f"{path}: 'adjustments' must be a file name")
    where = (path.parent / adjustments) if adjustments else None
    return Rubric(default, problems, where, float(share), path)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: Bounds checked before scoring: totals of many problems stay finite, and rounding to a step
#: stays exact (``points = 1e308`` made ``inf`` totals; ``step = 1e-300`` an OverflowError).
MAX_POINTS = 1e6
MIN_STEP = 1e-6


def _scheme(entry: Mapping[str, Any], base: Scheme, path: Path, where: str,
            metrics: tuple[str, ...] | None) -> Scheme:
    from ..rows import SCORE_COLUMNS

    points = entry.get("points", base.points)
    if not _number(points) or not 0 <= points <= MAX_POINTS:
        raise RubricError(f"{path}: {where}: 'points' must be a number from 0 to {MAX_POINTS:g} (got {points!r})")
    points = float(points)
    metric = entry.get("metric", base.metric)
    fallback = entry.get("fallback", base.fallback)
    for key, value in (("metric", metric), ("fallback", fallback)):
        if value is not None and value not in SCORE_COLUMNS:
            raise RubricError(f"{path}: {where}: unknown {key} {value!r} (one of {', '.join(SCORE_COLUMNS)})")
    if metrics is not None and metric != DEFAULT_METRIC and not _computed(metric, metrics):
        raise RubricError(f"{path}: {where}: metric {metric!r} is not computed by this run's --metrics")
    if "bands" in entry and "linear" in entry:
        raise RubricError(f"{path}: {where}: give 'bands' or 'linear', not both")
    step = entry.get("step", base.step if "bands" not in entry else None)
    if step is not None and (not _number(step) or not MIN_STEP <= step <= max(points, MIN_STEP)):
        raise RubricError(f"{path}: {where}: 'step' must be a number from {MIN_STEP:g} to the problem's points "
                          f"(got {step!r})")
    title = entry.get("title", base.title if where == "the rubric" else None)
    if "linear" in entry:
        floor, ceiling = _linear(entry["linear"], path, where)
        return Scheme(points, metric, fallback, (), floor, ceiling, step, title)
    if "bands" in entry:
        return Scheme(points, metric, fallback, _bands(entry["bands"], points, path, where), None, None, None, title)
    if base.floor is not None or base.bands:  # the default's rule, scaled to this problem's points
        scale = points / base.points if base.points else 0.0
        bands = tuple(Band(b.threshold, b.inclusive, round(b.points * scale, 6)) for b in base.bands)
        return Scheme(points, metric, fallback, bands, base.floor, base.ceiling, step, title)
    return Scheme(points, metric, fallback, (), 0.0, 1.0, step, title)  # no rule at all: linear 0..1


def _computed(metric: str, metrics: tuple[str, ...]) -> bool:
    if metric == "codebleu" or metric in ("ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match"):
        return "codebleu" in metrics
    if metric.startswith("codebertscore_"):
        return "codebertscore" in metrics
    return metric in metrics


def _bands(value: Any, points: float, path: Path, where: str) -> tuple[Band, ...]:
    if not isinstance(value, dict) or not value:
        raise RubricError(f"{path}: {where}: 'bands' must be a table such as {{\">= 0.85\" = 10, \">= 0.6\" = 7}}")
    bands = []
    for key, earned in value.items():
        match = _BAND.match(str(key))
        if not match:
            raise RubricError(f"{path}: {where}: band {key!r} must read '>= 0.85' or '> 0.5'")
        threshold = float(match[2])
        if isinstance(earned, str) and earned.strip().endswith("%"):
            try:
                earned = float(earned.strip()[:-1]) / 100 * points
            except ValueError:
                raise RubricError(f"{path}: {where}: band {key!r}: {earned!r} is not a share such as '70%'") from None
        if not _number(earned) or earned < 0:
            raise RubricError(f"{path}: {where}: band {key!r}: points must be a number of at least 0 (got {earned!r})")
        if earned > points + 1e-9:
            raise RubricError(f"{path}: {where}: band {key!r} gives {earned:g} points, more than the problem's {points:g}")
        bands.append(Band(threshold, match[1] == ">=", float(earned)))
    thresholds = [b.threshold for b in bands]
    if thresholds != sorted(thresholds, reverse=True):
        raise RubricError(f"{path}: {where}: list bands from the highest threshold down")
    return tuple(bands)


def _linear(value: Any, path: Path, where: str) -> tuple[float, float]:
    if not isinstance(value, dict) or set(value) - {"floor", "ceiling"}:
        raise RubricError(f"{path}: {where}: 'linear' must be {{ floor = 0.3, ceiling = 0.9 }}")
    floor, ceiling = value.get("floor", 0.0), value.get("ceiling", 1.0)
    if not (_number(floor) and _number(ceiling)) or not floor < ceiling:
        raise RubricError(f"{path}: {where}: 'linear' needs floor < ceiling (got {floor!r}, {ceiling!r})")
    return float(floor), float(ceiling)
