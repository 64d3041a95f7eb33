"""A rubric: how a submission's score becomes points, per problem (read from TOML, checked here).

::

    metric = "refscore"        # the score the points come from (default: the combined RefScore number)
    fallback = "codebleu"      # where the metric was not computed (e.g. CodeBLEU-only runs)
    points = 10                # each problem's points unless it says otherwise
    bands = { ">= 0.85" = 10, ">= 0.6" = 7, ">= 0.3" = 3 }   # else 0
    adjustments = "adjustments.csv"   # the teacher's manual adjustments (kept across re-grades)
    pass = 0.5                 # share of the total a student needs to pass (GitHub Classroom exit code)
    behaviour = 8              # points from behaviour (agreement with the reference when both run)
    style = 2                  # points from resemblance (the metric, by the bands or linear scale)
    not_parsing = 0            # the points of code that does not parse (never resemblance points)
    not_running = 0            # the points of code that does not load or compile where behaviour ran
    late = { per_day = "10%", cap = "30%", grace = 0 }   # off the points of a late submission
    show_expected = true       # feedback pages say what the reference returns on an input a student got wrong

    [problem.running_max]      # a per-problem override of any key above
    points = 20
    metric = "codebleu"
    linear = { floor = 0.3, ceiling = 0.9 }   # 0 at or below floor, all points at or above ceiling

Bands map a score to points (the first band the score reaches, in the order written; a band's
points may be a share of the problem's points with ``"70%"``). ``linear`` scales between a floor
and a ceiling; ``step = 0.5`` rounds linear points down to a multiple. The rubric is applied to
the rows of a run after scoring: changing it never rescores.

Points from behaviour and from resemblance: ``behaviour`` and ``style`` split a problem's points
(numbers, or shares such as ``"80%"``; given both, ``points`` is their sum). A rubric that names
neither gives behaviour ``DEFAULT_BEHAVIOUR_SHARE`` of a problem's points wherever behaviour ran
for that problem, and resemblance the rest; where it did not run, all points come from
resemblance, as the notes say. Behaviour's points are its agreement times its part. The bands or
linear scale pay the resemblance part; their points are written in ``style`` where the rubric
names it, else in the problem's points (then scaled to the part). ``metric = "behaviour"`` puts
every point on the bands read on behaviour's agreement. ``not_parsing`` and ``not_running`` are
cases of their own (``gradebook.case_of``): their points (default 0) replace both parts.
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

from ..errors import InputFileError
from ..safe_read import read_settings_text
from ..grade.classroom_choices import RESUBMISSION_POLICIES
from .late import LatePolicy, late_policy, points_or_share
from .rubric_error import RubricError

#: The score columns a rubric may name (``rows.SCORE_COLUMNS``), checked when the rubric is read.
DEFAULT_METRIC = "refscore"
DEFAULT_FALLBACK = "codebleu"
DEFAULT_POINTS = 10.0
DEFAULT_PASS = 0.5
_BAND = re.compile(r"^\s*(>=|>)\s*([0-9]*\.?[0-9]+)\s*$")
#: A rubric that names neither ``behaviour`` nor ``style``: behaviour's share where it ran.
DEFAULT_BEHAVIOUR_SHARE = 0.8
BEHAVIOUR = "behaviour"
#: The rubric's cases of their own: their points replace behaviour's and resemblance's.
CASES = ("not_parsing", "not_running")
_PART_KEYS = frozenset({"behaviour", "style", *CASES})
_PROBLEM_KEYS = frozenset({"metric", "fallback", "points", "bands", "linear", "step", "title", *_PART_KEYS})
_KEYS = _PROBLEM_KEYS | {"adjustments", "pass", "problem", "show_expected", "late", "resubmissions"}


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
    behaviour_share: float | None = None  # behaviour's share of the points (None: the default split)
    rule_points: float | None = None  # the points the bands and linear scale are written in (None: ``points``)
    case_shares: tuple[tuple[str, float], ...] = ()  # (case, share of the points) for ``CASES``

    def parts(self, behaviour_ran: bool) -> tuple[float, float]:
        """(behaviour's points, resemblance's points) of this problem; ``behaviour_ran``: behaviour
        ran for some submission of it (the default split applies only then)."""
        if self.metric == BEHAVIOUR:
            return 0.0, self.points
        share = self.behaviour_share
        if share is None:
            share = DEFAULT_BEHAVIOUR_SHARE if behaviour_ran else 0.0
        mine = round(self.points * share, 6)
        return mine, round(self.points - mine, 6)

    def style_points(self, score: float, part: float) -> tuple[float, str]:
        """The resemblance points a score earns of a ``part`` of the points, and the rule's words."""
        earned, rule = self.points_for(score)
        base = self.points if self.rule_points is None else self.rule_points
        return (round(earned * part / base, 2) if base else 0.0), rule

    def case_points(self, case: str) -> float:
        """The points of a rubric case (``not_parsing``, ``not_running``): 0 unless it says."""
        return round(dict(self.case_shares).get(case, 0.0) * self.points, 2)

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
            points = share * (self.points if self.rule_points is None else self.rule_points)
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
    show_expected: bool = True  # a counter-example on a feedback page shows the reference's outcome
    late: LatePolicy | None = None  # points off a late submission (``late.LatePolicy``)
    #: which version of a file handed in again counts (``latest``, ``best``); None: the command line's
    resubmissions: str | None = None

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
    show = data.get("show_expected", True)
    if not isinstance(show, bool):
        raise RubricError(f"{path}: 'show_expected' must be true or false (got {show!r})")
    late = late_policy(data["late"], path) if "late" in data else None
    again = data.get("resubmissions")
    if again is not None and again not in RESUBMISSION_POLICIES:
        raise RubricError(f"{path}: 'resubmissions' must be one of {', '.join(RESUBMISSION_POLICIES)} (got {again!r})")
    return Rubric(default, problems, where, float(share), path, show_expected=show, late=late, resubmissions=again)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: Bounds checked before scoring: totals of many problems stay finite, and rounding to a step
#: stays exact (``points = 1e308`` made ``inf`` totals; ``step = 1e-300`` an OverflowError).
MAX_POINTS = 1e6
MIN_STEP = 1e-6


def _scheme(entry: Mapping[str, Any], base: Scheme, path: Path, where: str,
            metrics: tuple[str, ...] | None) -> Scheme:
    from ..grade.rows import SCORE_COLUMNS

    points = entry.get("points", _sum_of_parts(entry, base.points))
    if not _number(points) or not 0 <= points <= MAX_POINTS:
        raise RubricError(f"{path}: {where}: 'points' must be a number from 0 to {MAX_POINTS:g} (got {points!r})")
    points = float(points)
    parts = _parts(entry, base, points, path, where)
    rule = parts.rule_points if parts.rule_points is not None else points
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
        return Scheme(points, metric, fallback, (), floor, ceiling, step, title, **parts.fields())
    if "bands" in entry:
        return Scheme(points, metric, fallback, _bands(entry["bands"], rule, path, where), None, None, None, title,
                      **parts.fields())
    if base.floor is not None or base.bands:  # the default's rule, scaled to this problem's (resemblance) points
        base_rule = base.rule_points if base.rule_points is not None else base.points
        scale = rule / base_rule if base_rule else 0.0
        bands = tuple(Band(b.threshold, b.inclusive, round(b.points * scale, 6)) for b in base.bands)
        return Scheme(points, metric, fallback, bands, base.floor, base.ceiling, step, title, **parts.fields())
    return Scheme(points, metric, fallback, (), 0.0, 1.0, step, title, **parts.fields())  # no rule: linear 0..1


def _sum_of_parts(entry: Mapping[str, Any], otherwise: float) -> Any:
    """``behaviour + style`` where both are numbers of points and ``points`` is not given."""
    both = entry.get("behaviour"), entry.get("style")
    return sum(both) if all(_number(v) for v in both) else otherwise


@dataclass(frozen=True)
class _Parts:
    """A scheme's split of its points (``Scheme.behaviour_share``, ``rule_points``, ``case_shares``)."""

    behaviour_share: float | None
    rule_points: float | None
    case_shares: tuple[tuple[str, float], ...]

    def fields(self) -> dict[str, Any]:
        return {"behaviour_share": self.behaviour_share, "rule_points": self.rule_points,
                "case_shares": self.case_shares}


def _parts(entry: Mapping[str, Any], base: Scheme, points: float, path: Path, where: str) -> _Parts:
    """The ``behaviour``/``style`` split and the cases' points of one table (else the base's, scaled)."""
    def amount(key: str) -> float | None:
        if key not in entry:
            return None
        value, share = points_or_share(entry[key], path, where, key)
        value = value * points if share else value
        if value > points + 1e-9:
            raise RubricError(f"{path}: {where}: '{key}' gives {value:g} points, more than the problem's {points:g}")
        return value

    behaviour, style = amount("behaviour"), amount("style")
    if behaviour is not None and style is not None and abs(behaviour + style - points) > 1e-6:
        raise RubricError(f"{path}: {where}: 'behaviour' ({behaviour:g}) and 'style' ({style:g}) must add up to "
                          f"the problem's points ({points:g})")
    if behaviour is None and style is not None:
        behaviour = points - style
    if behaviour is not None:
        share: float | None = behaviour / points if points else 0.0
        rule: float | None = points - behaviour if style is not None else None
    else:
        share = base.behaviour_share
        rule = base.rule_points / base.points * points if base.rule_points is not None and base.points else None
    cases = dict(base.case_shares)
    for case in CASES:
        value = amount(case)
        if value is not None:
            cases[case] = value / points if points else 0.0
    return _Parts(share, rule, tuple(sorted(cases.items())))


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
