"""Checks of the options ``refscore score`` and ``refscore grade`` share: each bad value is a
usage error (exit 2) with one line saying what is allowed, found before any scoring starts. The
rules are the settings schema's (``settings_schema``: the editor and the daemon use the same);
this module adds what only this machine can tell (is CUDA there, does the model have the layer)."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, Iterable, Sequence

from ..errors import InputFileError, UsageError  # noqa: F401 - UsageError: re-exported for the commands
from ..metrics.codebleu import DEFAULT_WEIGHTS
from ..metrics.weights import Weights
from ..vocabulary import CODEBLEU_NAMES, METRIC_LABELS, codebleu_name
from ..settings_schema import DEVICE_PATTERN, DEVICES, SETTINGS, EncoderChoice, SettingError, check_layer_range  # noqa: F401


def checked(name: str, value: Any) -> Any:
    """``value`` of the setting ``name`` checked by the schema; a usage error naming the flag."""
    setting = SETTINGS[name]
    try:
        return setting.from_text(value) if isinstance(value, str) else setting.check(value)
    except SettingError as error:
        raise UsageError(f"{setting.flag} {value!r}: {error}") from None


def parse_metrics(text: str) -> tuple[str, ...]:
    """``codebleu,codebertscore`` -> the metrics named (each once); at least one, all known
    (``chrf`` and ``tsed`` are known too, computed only when named)."""
    return checked("metrics", text)


def parse_weights(text: str) -> Weights:
    """CodeBLEU weights ``a,b,c,d``: four non-negative finite numbers, not all 0."""
    return checked("weights", text)


def check_fail_under(value: float | None) -> None:
    """A threshold is a score: a finite number from 0 to 1."""
    if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise UsageError(f"--fail-under {value:g}: a threshold is a score from 0 to 1")


#: Metrics whose one score column has the metric's name.
_OWN_COLUMN = ("chrf", "tsed", "crystalbleu", "behaviour")


def metric_of(column: str) -> str:
    """The metric that fills a score column (``codebertscore_f1`` -> ``codebertscore``, ``chrf``
    -> ``chrf``, ``syntax_match`` -> ``codebleu``)."""
    if column.startswith("codebertscore"):
        return "codebertscore"
    return column if column in _OWN_COLUMN else "codebleu"


def default_fail_metric(metrics: Sequence[str], codebleu_rule: str = "native") -> str:
    """The column ``--fail-under`` reads without ``--fail-metric``: the combined RefScore number
    where this version ships it and the run computes it (CodeBLEU's native rule and
    CodeBERTScore), else CodeBLEU, else CodeBERTScore F1, else the first metric named
    (``--metrics chrf,tsed``: chrF)."""
    if {"codebleu", "codebertscore"} <= set(metrics) and codebleu_rule == "native":
        from ..scoring.headline import headline_model

        if headline_model() is not None:
            return "refscore"
    if "codebleu" in metrics:
        return codebleu_name(codebleu_rule)
    if "codebertscore" in metrics:
        return "codebertscore_f1"
    return next(m for m in metrics if m in _OWN_COLUMN)


#: What a RefScore threshold reads where the combined number does not apply to a scored submission
#: (a context, another model): CodeBERTScore F3 (the best single score at ranking HumanEval
#: completions and the one the fit starts from; docs/correlation.md), else CodeBLEU.
REFSCORE_FALLBACKS = ("codebertscore_f3", codebleu_name("native"))


def fail_fallback(column: str, metrics: Sequence[str]) -> str | None:
    """The column a ``refscore`` threshold falls back to (``REFSCORE_FALLBACKS``), else None."""
    if column != "refscore":
        return None
    return next((c for c in REFSCORE_FALLBACKS if metric_of(c) in metrics), None)


def check_fail_metric(column: str | None, metrics: Sequence[str], codebleu_rule: str = "native") -> None:
    """``--fail-metric`` must be a column the chosen metrics compute (``refscore``: only when this
    version ships the combined number, from CodeBLEU and CodeBERTScore; CodeBLEU: the column of
    the run's rule, ``codebleu`` for the package's, ``codebleu_native`` for RefScore's)."""
    rule_of_column = next((rule for rule, name in CODEBLEU_NAMES.items() if name == column), codebleu_rule)
    if rule_of_column != codebleu_rule:
        raise UsageError(f"--fail-metric {column} is CodeBLEU under the {rule_of_column} rule; this run's is "
                         f"{codebleu_name(codebleu_rule)} (or add --codebleu-rule {rule_of_column})")
    if column == "refscore":
        from ..scoring.headline import headline_model

        if headline_model() is None:
            raise UsageError("--fail-metric refscore: this version ships no combined RefScore number "
                             "(docs/correlation.md says why); choose codebleu, codebertscore_f1 or another "
                             "score column")
        missing = [m for m in ("codebleu", "codebertscore") if m not in metrics]
        if missing:
            raise UsageError(f"--fail-metric refscore needs {' and '.join(missing)} in --metrics")
        return
    if column is not None and metric_of(column) not in metrics:
        raise UsageError(f"--fail-metric {column} is not computed with --metrics {','.join(metrics)}; "
                         f"add {metric_of(column)} to --metrics or choose a {'/'.join(metrics)} column")


#: The text of the default CodeBLEU weights (``--weights``'s default in ``score`` and ``grade``).
DEFAULT_WEIGHTS_TEXT = ",".join(str(w) for w in DEFAULT_WEIGHTS)
#: The options that change one metric only: metric -> (flag, argparse destination, value when not given).
METRIC_ONLY_OPTIONS: dict[str, tuple[tuple[str, str, Any], ...]] = {
    "codebertscore": (("--model", "model", None), ("--layer", "layer", None), ("--device", "device", None),
                      ("--idf", "idf", None), ("--backend", "backend", None)),
    "codebleu": (("--weights", "weights", DEFAULT_WEIGHTS_TEXT), ("--codebleu-rule", "codebleu_rule", "native")),
    "behaviour": (("--inputs", "inputs", None), ("--unsandboxed", "unsandboxed", False)),
}


def add_behaviour_options(parser: argparse.ArgumentParser) -> None:
    """``--inputs FILE`` and ``--unsandboxed``: the behaviour stage's options (``score`` and ``grade``)."""
    parser.add_argument("--inputs", metavar="FILE",
                        help="behaviour: more inputs for the reference's functions, one call per line "
                             "(add(1, 2)); for a program without functions, standard inputs separated by "
                             "lines of ---")
    parser.add_argument("--unsandboxed", action="store_true",
                        help="behaviour: run candidates without a sandbox where none is available (only "
                             "process limits: never for code you do not trust)")


def behaviour_inputs(args: argparse.Namespace) -> str | None:
    """The text of ``--inputs`` (None when not given); a file that cannot be read is one line."""
    path = getattr(args, "inputs", None)
    if path is None:
        return None
    from ..files.sources import read_source

    return read_source(path)


def ray_address_problem(address: str | None, engine: str) -> str | None:
    """``--ray-address`` is read only by ``--engine ray`` (``grade``, ``eval``): alone it was
    ignored and the run scored here, so it is a usage error (the line), None when it applies."""
    return "--ray-address is for --engine ray" if address is not None and engine != "ray" else None


def drop_unused_options(args: argparse.Namespace, metrics: Sequence[str],
                        extra: Sequence[tuple[str, str, Any]] = ()) -> None:
    """The options of a metric ``metrics`` leaves out (``METRIC_ONLY_OPTIONS``; ``extra``: more
    CodeBERTScore ones, flag, destination and value when not given) change nothing: one warning
    line per metric names those given (``drop_ignored``), and they are set back to their
    defaults, so no request, daemon or cache key sees them (a script that always passes
    ``--device`` keeps working). Check their values first. ``--per-function`` pairs functions by
    CodeBLEU, so it uses the CodeBLEU options anyway."""
    used = {*metrics, *(("codebleu",) if getattr(args, "per_function", False) else ())}
    for metric, known in METRIC_ONLY_OPTIONS.items():
        if metric not in used:
            drop_ignored(args, (*known, *(extra if metric == "codebertscore" else ())), METRIC_LABELS[metric],
                         f"which --metrics {','.join(metrics)} does not compute")


def drop_ignored(args: argparse.Namespace, known: Sequence[tuple[str, str, Any]], what: str, why: str) -> None:
    """The options of ``known`` (flag, argparse destination, value when not given) that only
    change ``what``, which this run does not make (``why``): when any is given, one warning line
    (``refscore: warning: --title only changes the HTML report, which ...: ignored``), and each is
    set back to its default."""
    given = [(flag, dest, unset) for flag, dest, unset in known if getattr(args, dest, unset) != unset]
    if not given:
        return
    print(f"refscore: warning: {', '.join(flag for flag, _, _ in given)} only change"
          f"{'s' if len(given) == 1 else ''} {what}, {why}: ignored", file=sys.stderr)
    for _, dest, unset in given:
        setattr(args, dest, unset)


def check_device(device: str | None, metrics: Sequence[str]) -> None:
    """``cpu``, ``cuda``, ``cuda:N`` or ``mps``; when CodeBERTScore is wanted, also one that this
    torch can use (torch is imported only then)."""
    if device is None:
        return
    found = DEVICE_PATTERN.fullmatch(checked("device", device))
    if found is None:  # pragma: no cover - the schema checked the pattern
        raise UsageError(f"--device {device!r}: choose {DEVICES}")
    if "codebertscore" not in metrics:
        return
    from ..embed.model_check import device_problem

    problem = device_problem(found.group(0))
    if problem is not None:
        raise UsageError(f"--device {device}: {problem.replace('use cpu', 'use --device cpu')}")


def check_encoder(choice: EncoderChoice, languages: Iterable[str], metrics: Sequence[str]) -> None:
    """``--model`` must be a model this machine has (one line, exit 3: it was a note on every
    scored pair, exit 0); ``--layer`` must be a hidden layer of the model each language would use
    (0 is the embeddings, N the last of N layers; ``embed.model_check``)."""
    if "codebertscore" not in metrics:
        return
    from ..embed import ModelNotAvailableError
    from ..embed.model_check import check_model_and_layer

    try:
        check_model_and_layer(choice, languages)
    except ModelNotAvailableError as error:
        raise InputFileError(f"--model: {error}") from None
    except SettingError as error:
        raise UsageError(f"--layer {choice.layer}: {error}") from None
    if choice.layer is not None:
        checked("layer", choice.layer)  # a model whose layers nobody knows: the schema's rule


def make_model_portable(args: argparse.Namespace) -> None:
    """``--model`` naming a folder here becomes its absolute path: requests travel to the daemon,
    whose working folder is another."""
    if getattr(args, "model", None):
        from ..embed.model_check import portable_model

        args.model = portable_model(args.model)
