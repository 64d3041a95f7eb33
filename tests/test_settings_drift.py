"""Every front end mirrors the one declaration of the settings that change a number
(``settings_schema.SETTINGS``): the request, the command line, the daemon's requests, the Python
API, the editor's server settings and the VS Code extension's contributes. A setting added to the
schema and forgotten by a front end fails here (a front end that leaves one out on purpose says
why in ``NOT_OFFERED``)."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
from pathlib import Path

import pytest

from refscore import api
from refscore.cli import build_parser
from refscore.lsp import settings as lsp_settings
from refscore.scoring.report import ScoreRequest
from refscore.service.requests import RpcError, parse_request
from refscore.settings_schema import BACKENDS, SETTINGS

ROOT = Path(__file__).resolve().parents[1]
#: front end -> settings it does not offer, and why (a design choice, not an oversight)
NOT_OFFERED = {
    "editor": {
        "codebleu_rule": "the package's rule carries no explanations, and the editor shows explanations",
        "idf": "IDF weights come from a corpus of references; the editor scores one file against its own",
    },
    "grade": {"context": "each JSONL row carries its own context (the `context` field)"},
}


def _options(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {flag for action in sub._actions for flag in action.option_strings}


def test_the_request_has_a_field_for_every_setting() -> None:
    fields = {f.name for f in dataclasses.fields(ScoreRequest)}
    assert set(SETTINGS) <= fields


@pytest.mark.parametrize("command", ["score", "grade"])
def test_the_command_line_has_a_flag_for_every_setting(command: str) -> None:
    skipped = set(NOT_OFFERED.get(command, {}))
    missing = [s.flag for s in SETTINGS.values() if s.name not in skipped and s.flag not in _options(command)]
    assert missing == []


def test_the_python_api_takes_every_setting() -> None:
    parameters = set(inspect.signature(api.score).parameters)
    assert set(SETTINGS) <= parameters


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_the_daemon_checks_every_setting_with_the_schemas_rule(name: str) -> None:
    request = {"candidate": "x = 1\n", "references": ["x = 2\n"], "language": "python", name: {"not": "valid"}}
    with pytest.raises(RpcError) as raised:
        parse_request(request)
    assert f"request.{name}" in str(raised.value)


def _editor_keys() -> dict[str, str]:
    return dict(lsp_settings._KEYS)


def test_the_editor_server_reads_every_setting_it_offers_through_the_schema() -> None:
    offered = [s for s in SETTINGS.values() if s.name not in NOT_OFFERED["editor"]]
    keys = _editor_keys()
    assert [s.key for s in offered if s.key not in keys] == []
    for setting in offered:
        _, problems = lsp_settings.parse_settings({setting.key: {"not": "valid"}})
        assert problems and problems[0].startswith(f"refscore.{setting.key}: "), setting.key


def test_the_vs_code_extension_contributes_every_setting_the_editor_offers() -> None:
    contributes = json.loads((ROOT / "client-vscode" / "package.json").read_text("utf-8"))["contributes"]
    sections = contributes["configuration"]
    properties: dict = {}
    for section in sections if isinstance(sections, list) else [sections]:
        properties.update(section["properties"])
    offered = [s for s in SETTINGS.values() if s.name not in NOT_OFFERED["editor"]]
    assert [s.key for s in offered if f"refscore.{s.key}" not in properties] == []
    # a setting's choices are the schema's
    backend = properties["refscore.backend"]
    assert set(backend.get("enum", [])) - {None} == set(BACKENDS)
    # and the extension offers no number-changing key the server ignores
    server_keys = {f"refscore.{key}" for key in _editor_keys()}
    schema_keys = {f"refscore.{s.key}" for s in SETTINGS.values()}
    assert sorted(k for k in properties if k in schema_keys and k not in server_keys) == []
