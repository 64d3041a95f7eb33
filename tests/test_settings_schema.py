"""One settings schema (issue 21, part 4): the command line, the editor's settings, the daemon's
requests and the encoder reject the same values of the settings that change a number, each with
the schema's own sentence, and no other module keeps a copy of the rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from refscore.commands import options
from refscore.embed.backends import BackendError, requested_backend
from refscore.errors import UsageError
from refscore.lsp.settings import parse_settings
from refscore.service.requests import RpcError, parse_request
from refscore.settings_schema import SETTINGS, SettingError, check_layer_range

SERVER = Path(__file__).resolve().parents[1] / "server" / "refscore"
#: (schema field, editor key, JSON value, command-line text or None when the CLI has no such text)
BAD = [
    ("metrics", "metrics", ["klingon"], "klingon"),
    ("weights", "codebleu.weights", [1, 1, 1], "1,1,1"),
    ("weights", "codebleu.weights", [0, 0, 0, 0], "0,0,0,0"),
    ("layer", "layer", -1, "-1"),
    ("device", "device", "potato", "potato"),
    ("backend", "backend", "tpu", "tpu"),
    ("model", "model", 5, None),
    ("context", "context", ["a task"], None),
]


def _schema_message(name: str, value, text: bool = False) -> str:
    with pytest.raises(SettingError) as error:
        SETTINGS[name].from_text(value) if text else SETTINGS[name].check(value)
    return str(error.value).split("choose from")[0]  # the metrics a front end computes differ


@pytest.mark.parametrize("name, key, value, text", BAD)
def test_every_front_end_rejects_the_same_values_with_the_schemas_words(name, key, value, text) -> None:
    message = _schema_message(name, value)
    # the daemon's requests
    request = {"candidate": "x = 1", "references": ["x = 2"], "language": "python", name: value}
    with pytest.raises(RpcError) as rpc:
        parse_request(request)
    assert f"request.{name}" in str(rpc.value) and message in str(rpc.value)
    # the editor's settings (the default is kept, one message)
    section: dict = {}
    node = section
    *parents, last = key.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    _, problems = parse_settings(section)
    assert len(problems) == 1 and problems[0].startswith(f"refscore.{key}:") and message in problems[0]
    # the command line
    if text is not None:
        with pytest.raises(UsageError) as usage:
            options.checked(name, text)
        assert str(usage.value).startswith(SETTINGS[name].flag) and _schema_message(name, text, True) in str(usage.value)


def test_the_same_good_values_mean_the_same_everywhere() -> None:
    settings, problems = parse_settings({"backend": "ONNX-int8", "device": "CUDA:1", "layer": 3,
                                         "codebleu": {"weights": [1, 2, 3, 4]}})
    assert not problems
    request = parse_request({"candidate": "x", "references": ["y"], "language": "python", "backend": "ONNX-int8",
                             "device": "CUDA:1", "layer": 3, "weights": [1, 2, 3, 4]})
    assert (settings.encoder.backend, settings.encoder.device, settings.encoder.layer, settings.codebleu_weights) == \
        (request.encoder.backend, request.encoder.device, request.encoder.layer, request.weights) == \
        ("onnx-int8", "cuda:1", 3, (1, 2, 3, 4))
    assert options.checked("backend", "ONNX-int8") == "onnx-int8" == requested_backend("ONNX-int8")
    assert options.parse_metrics("CodeBLEU, chrf,codebleu") == ("codebleu", "chrf")
    assert options.parse_weights("1,2,3,4") == (1, 2, 3, 4)
    _, problems = parse_settings({"codebleu": {"weights": "1,2,3,4"}})  # text is the command line's form
    assert len(problems) == 1 and "in a list" in problems[0]


def test_the_encoder_and_the_daemon_use_the_schemas_layer_range_and_idf_rule() -> None:
    with pytest.raises(SettingError, match="m has hidden layers 0 to 6"):
        check_layer_range(7, 6, "m")
    assert check_layer_range(6, 6, "m") == 6
    with pytest.raises(BackendError, match="is not one of auto, torch"):
        requested_backend("tpu")
    with pytest.raises(RpcError, match="must be an absolute file path"):
        parse_request({"candidate": "x", "references": ["y"], "language": "python", "idf": "idf.json"})
    assert parse_request({"candidate": "x", "references": ["y"], "language": "python",
                          "idf": "references"}).encoder.idf == "references"
    # text metrics travel without the daemon: a request may name none of its metrics
    assert parse_request({"candidate": "x", "references": ["y"], "language": "python", "metrics": []}).metrics == ()


def test_no_other_module_keeps_a_copy_of_the_rules() -> None:
    """The lists and patterns are written once, in settings_schema.py."""
    copies = {
        "backends": re.compile(r'\(\s*"auto",\s*"torch",\s*"onnx"'),
        "rules": re.compile(r'\(\s*"native",\s*"compat"\s*\)'),
        "devices": re.compile(r"cpu\|mps\|cuda"),
        "metrics": re.compile(r'^\w+\s*=\s*\(\s*"codebleu",\s*"codebertscore"\s*\)', re.MULTILINE),
    }
    found = []
    for path in SERVER.rglob("*.py"):
        if path.name == "settings_schema.py" or "eval" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(SERVER)}: {what}" for what, pattern in copies.items() if pattern.search(text)]
    assert not found, found


def test_the_python_api_checks_through_the_schema_too() -> None:
    import refscore

    for name, value in (("layer", -1), ("device", "potato"), ("backend", "tpu"), ("weights", (1, 1, 1)),
                        ("codebleu_rule", "paper")):
        with pytest.raises(refscore.ScoreInputError) as error:
            refscore.score(["x = 1"], ["x = 2"], language="python", metrics=("codebleu",), **{name: value})
        assert str(error.value).startswith(name) and _schema_message(name, value) in str(error.value)
    row, = refscore.score(["x = 1"], ["x = 1"], language="python", metrics=("codebleu",), backend="TORCH",
                          weights=[1, 1, 1, 1])
    assert row.codebleu_native == pytest.approx(1.0)


def test_the_command_lines_idf_goes_through_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--idf`` of score and grade is checked by the schema like the daemon's ``request.idf``:
    blank means none there as here, and a value the schema refuses is a usage error in its words."""
    from dataclasses import replace

    from refscore.commands.bert_options import idf_setting

    request = parse_request({"candidate": "x", "references": ["y"], "language": "python", "idf": "  "})
    assert idf_setting("  ") is request.encoder.idf is None
    assert idf_setting("references") == "references"

    def refuse(value):
        raise SettingError("must be a file the schema allows")

    monkeypatch.setitem(SETTINGS, "idf", replace(SETTINGS["idf"], check=refuse))
    with pytest.raises(UsageError, match=r"^--idf 'references': must be a file the schema allows$"):
        idf_setting("references")


@pytest.mark.parametrize("section, expected", [
    ({"references": {"*.py": 5}},
     "refscore.references: '*.py' must map to a reference path or a list of paths (not 5); using the default, {}"),
    ({"references": {"a/*.py": ["key.py", 3]}},
     "refscore.references: 'a/*.py' must map to a reference path or a list of paths (not ['key.py', 3]); "
     "using the default, {}"),
    ({"references": 5},
     "refscore.references: must map candidate globs to reference paths (not 5); using the default, {}"),
    ({"inlayHints": {"enabled": "yes"}},
     "refscore.inlayHints.enabled: must be true or false (not 'yes'); using the default, false"),
])
def test_a_bad_editor_setting_is_one_sentence_naming_the_bad_value_once(section, expected) -> None:
    """Like every other bad setting, ``refscore.<key>: <what it must be> (not <value>); using the
    default, <json>``: the value shown is the one that is wrong, once (not "not 5 (not {'*.py': 5})"),
    and the key is not repeated inside the sentence."""
    _, problems = parse_settings(section)
    assert problems == [expected]
