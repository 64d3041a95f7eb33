"""Every front end mirrors the one object of the settings that change a number
(``settings_schema.ScoreSettings``, its rules in ``settings_schema.SETTINGS``): the request, the
command line, the daemon's requests, the Python API (``score`` and ``grade_dataset``), the
editor's server settings and the VS Code extension's contributes, with the object's defaults. A
setting added to the object and forgotten by a front end fails here (a front end that leaves one
out on purpose says why in ``NOT_OFFERED``; one whose default differs on purpose in
``OWN_DEFAULTS``)."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from refscore import api
from refscore.cli import build_parser
from refscore.grade import dataset
from refscore.grade.settings import GradeSettings
from refscore.lsp import settings as lsp_settings
from refscore.scoring.report import ScoreRequest, request_to_dict
from refscore.scoring.requests import request_from_dict
from refscore.service.requests import RpcError, parse_request
from refscore.settings_schema import (BACKENDS, DEFAULT_METRICS, DEFAULT_SETTINGS, ENCODER_NAMES, SETTINGS,
                                      EncoderChoice, ScoreSettings)

ROOT = Path(__file__).resolve().parents[1]
#: front end -> settings it does not offer, and why (a design choice, not an oversight)
NOT_OFFERED = {
    "editor": {
        "codebleu_rule": "the package's rule carries no explanations, and the editor shows explanations",
        "idf": "IDF weights come from a corpus of references; the editor scores one file against its own",
        "inputs": "the editor runs functions on inputs drawn from the reference's own calls, not a teacher's file",
        "unsandboxed": "the editor runs code only in its sandbox (refscore.behaviour.enabled turns it off)",
    },
    "grade": {"context": "each JSONL row carries its own context (the `context` field)"},
}
#: front end -> setting -> (its own default, why it differs from the object's)
OWN_DEFAULTS = {
    "api": {"metrics": (DEFAULT_METRICS, "the API runs behaviour where a sandbox is available, as `score` does")},
    "grade_dataset": {"metrics": (("codebleu",), "a cluster of CPUs needs no model")},
}
#: the settings a request carries with its texts, not in ``ScoreSettings``
WITH_THE_TEXTS = {"context"}


def _options(command: str) -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {flag: action for action in sub._actions for flag in action.option_strings}


def test_the_object_holds_every_setting_of_the_schema_and_nothing_else() -> None:
    assert set(DEFAULT_SETTINGS.flat()) == set(SETTINGS) - WITH_THE_TEXTS
    assert set(ENCODER_NAMES) == {f.name for f in dataclasses.fields(EncoderChoice)}
    assert all(f.default is not dataclasses.MISSING for f in dataclasses.fields(ScoreSettings))


def test_the_request_carries_the_object_and_the_texts() -> None:
    fields = {f.name for f in dataclasses.fields(ScoreRequest)}
    assert "settings" in fields and WITH_THE_TEXTS <= fields
    assert not fields & set(DEFAULT_SETTINGS.flat())  # no setting declared twice
    request = ScoreRequest("x", "y", "python", layer=3, metrics="codebleu")
    assert request.settings == DEFAULT_SETTINGS.changed(layer=3, metrics=("codebleu",))
    wire = json.loads(json.dumps(request_to_dict(request)))
    assert set(SETTINGS) <= set(wire) and request_from_dict(wire) == request


def test_the_grade_carries_the_object() -> None:
    fields = {f.name for f in dataclasses.fields(GradeSettings)}
    assert "settings" in fields and not fields & set(DEFAULT_SETTINGS.flat())
    grade = GradeSettings(metrics=("codebleu",), layer=2)
    assert GradeSettings.from_dict(json.loads(json.dumps(grade.to_dict()))) == grade


@pytest.mark.parametrize("command", ["score", "grade"])
def test_the_command_line_has_a_flag_for_every_setting_with_the_objects_default(command: str) -> None:
    from refscore.commands.options import checked

    skipped = set(NOT_OFFERED.get(command, {}))
    options = _options(command)
    assert [s.flag for s in SETTINGS.values() if s.name not in skipped and s.flag not in options] == []
    defaults = DEFAULT_SETTINGS.flat()
    for name, want in defaults.items():
        if name in ("metrics", "inputs"):  # --metrics' default is the command's own; --inputs names a file
            continue
        given = options[SETTINGS[name].flag].default
        assert (checked(name, given) if isinstance(given, str) else given) == want, name
    assert checked("metrics", options["--metrics"].default) == DEFAULT_METRICS


def test_the_python_api_takes_every_setting_with_the_objects_default() -> None:
    parameters = inspect.signature(api.score).parameters
    assert set(SETTINGS) <= set(parameters)
    own = OWN_DEFAULTS["api"]
    for name, want in DEFAULT_SETTINGS.flat().items():
        default = parameters[name].default
        assert (tuple(default) if isinstance(default, (list, tuple)) else default) == own.get(name, (want,))[0], name


@pytest.mark.parametrize("name", sorted(set(SETTINGS) - WITH_THE_TEXTS))
def test_grade_dataset_takes_every_setting_through_the_object(name: str) -> None:
    """``grade_dataset`` names each setting as ``score`` does, checked by the same rule before any
    cluster is reached."""
    keyword = "behaviour_inputs" if name == "inputs" else name  # its ``inputs`` are the files graded
    with pytest.raises(ValueError, match=f"^{name} "):
        dataset.grade_dataset([], "unused", **{keyword: {"not": "valid"}})
    assert dataset.DATASET_SETTINGS.metrics == OWN_DEFAULTS["grade_dataset"]["metrics"][0]
    assert dataset.DATASET_SETTINGS.changed(metrics=DEFAULT_SETTINGS.metrics) == DEFAULT_SETTINGS


#: encoder settings a daemon is not started with, and why
NOT_AT_START = {"idf": "IDF weights belong to a request's references, not to the daemon's model"}


@pytest.mark.parametrize("command", ["start", "run"])
def test_the_daemon_starts_with_every_encoder_setting(command: str) -> None:
    """``daemon start/run --model/--layer/--device/--backend``: the engine's defaults (an
    ``EncoderChoice``) for requests that leave one unset."""
    parser = build_parser()
    daemon = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["daemon"]
    sub = next(a for a in daemon._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    flags = {flag for action in sub._actions for flag in action.option_strings}
    wanted = [SETTINGS[name].flag for name in ENCODER_NAMES if name not in NOT_AT_START]
    assert [flag for flag in wanted if flag not in flags] == []


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_the_daemon_checks_every_setting_with_the_schemas_rule(name: str) -> None:
    request = {"candidate": "x = 1\n", "references": ["x = 2\n"], "language": "python", name: {"not": "valid"}}
    with pytest.raises(RpcError) as raised:
        parse_request(request)
    assert f"request.{name}" in str(raised.value)


def test_the_daemons_defaults_are_the_objects() -> None:
    request = parse_request({"candidate": "x = 1\n", "references": ["x = 2\n"], "language": "python"})
    assert request.settings == DEFAULT_SETTINGS


def _editor_keys() -> dict[str, str]:
    return dict(lsp_settings._KEYS)


def _offered() -> list[Any]:
    return [s for s in SETTINGS.values() if s.name not in NOT_OFFERED["editor"]]


def test_the_editor_server_reads_every_setting_it_offers_through_the_schema() -> None:
    keys = _editor_keys()
    assert [s.key for s in _offered() if s.key not in keys] == []
    for setting in _offered():
        _, problems = lsp_settings.parse_settings({setting.key: {"not": "valid"}})
        assert problems and problems[0].startswith(f"refscore.{setting.key}: "), setting.key


def test_the_editor_servers_requests_carry_the_objects_defaults() -> None:
    from refscore.lsp.requests import request_for

    settings, _ = lsp_settings.parse_settings({})
    request = request_for(settings, "x = 1", ["x = 2"], "python", None, DEFAULT_SETTINGS.metrics)
    assert request.settings == DEFAULT_SETTINGS
    chosen, problems = lsp_settings.parse_settings({"layer": 2, "backend": "onnx",
                                                    "codebleu": {"weights": [1, 1, 1, 1]}})
    assert not problems
    request = request_for(chosen, "x = 1", ["x = 2"], "python", None, ("codebleu",))
    assert request.settings == DEFAULT_SETTINGS.changed(layer=2, backend="onnx", weights=(1.0, 1.0, 1.0, 1.0),
                                                        metrics=("codebleu",))


def _contributes() -> dict[str, Any]:
    contributes = json.loads((ROOT / "client-vscode" / "package.json").read_text("utf-8"))["contributes"]
    sections = contributes["configuration"]
    properties: dict = {}
    for section in sections if isinstance(sections, list) else [sections]:
        properties.update(section["properties"])
    return properties


def test_the_vs_code_extension_contributes_every_setting_the_editor_offers_with_the_objects_default() -> None:
    properties = _contributes()
    assert [s.key for s in _offered() if f"refscore.{s.key}" not in properties] == []
    defaults = DEFAULT_SETTINGS.flat()
    for setting in _offered():
        if setting.name in defaults:
            default = properties[f"refscore.{setting.key}"].get("default")
            want = defaults[setting.name]
            assert (tuple(default) if isinstance(default, list) else default) == want, setting.key
    # a setting's choices are the schema's
    backend = properties["refscore.backend"]
    assert set(backend.get("enum", [])) - {None} == set(BACKENDS)
    # and the extension offers no number-changing key the server ignores
    server_keys = {f"refscore.{key}" for key in _editor_keys()}
    schema_keys = {f"refscore.{s.key}" for s in SETTINGS.values()}
    assert sorted(k for k in properties if k in schema_keys and k not in server_keys) == []
