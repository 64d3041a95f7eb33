"""One builder of requests (issue 44, item 1): ``scoring.requests.build_request`` is where every
``ScoreRequest`` of the package is made, so the API, the daemon, the CLI, the editor and the
grader check the texts, the references, the language and the context one way, each naming the
field as its users know it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import refscore
from refscore.errors import ScoreInputError
from refscore.scoring.requests import build_request
from refscore.service.requests import RpcError, parse_request
from refscore.settings_schema import DEFAULT_SETTINGS

PACKAGE = Path(refscore.__file__).resolve().parent
BUILDER = PACKAGE / "scoring" / "requests.py"


def _constructions(path: Path) -> list[int]:
    """Lines of ``path`` that call ``ScoreRequest(...)`` directly."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name) and node.func.id == "ScoreRequest"]


def test_requests_are_made_only_by_the_builder() -> None:
    made = {path.relative_to(PACKAGE).as_posix(): lines for path in sorted(PACKAGE.rglob("*.py"))
            if path != BUILDER and (lines := _constructions(path))}
    assert made == {}, f"ScoreRequest built outside scoring/requests.py: {made}"
    assert _constructions(BUILDER), "the builder itself makes the request"


def test_the_count_sees_a_direct_construction(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from refscore.scoring.report import ScoreRequest\nr = ScoreRequest('a', 'b', 'python')\n")
    assert _constructions(module) == [2]


def test_the_builder_gives_the_canonical_language_and_a_tuple_of_references() -> None:
    request = build_request("x = 1\n", "x = 2\n", "Python", settings=DEFAULT_SETTINGS)
    assert (request.language, request.references, request.settings) == ("python", ("x = 2\n",), DEFAULT_SETTINGS)
    assert build_request("x = 1", ["a", "b"], "py").references == ("a", "b")


#: how each front end names a field (the builder's ``names``)
NAMES = {"builder": lambda field: field, "daemon": lambda field: f"request.{field}",
         "api": lambda field: "candidate 0" if field == "candidate" else f"the {field} of candidate 0"}


@pytest.mark.parametrize("candidate, references, language, context, field, problem", [
    (3, ["x"], "python", None, "candidate", "is int, not a string"),
    ("x", [], "python", None, "references", "must be a string or a non-empty list of strings"),
    ("x", ["x", 4], "python", None, "references", "must be a string or a non-empty list of strings"),
    ("a\udc00", ["x"], "python", None, "candidate", "holds a lone surrogate (U+DC00 at character 1)"),
    ("x", ["b\ud800"], "python", None, "references", "holds a lone surrogate (U+D800 at character 1)"),
    ("x", ["x"], "python", "why\udc80", "context", "holds a lone surrogate (U+DC80 at character 3)"),
])
def test_one_message_per_bad_field_through_every_front_end(candidate, references, language, context, field: str,
                                                            problem: str) -> None:
    with pytest.raises(ScoreInputError) as direct:
        build_request(candidate, references, language, context)
    with pytest.raises(RpcError) as daemon:  # INVALID_PARAMS, the field as the daemon's JSON names it
        parse_request({"candidate": candidate, "references": references, "language": language, "context": context})
    with pytest.raises(ScoreInputError) as api:  # refused before scoring, naming the candidate
        refscore.score([candidate], [references], language, metrics=("codebleu",), context=context)
    assert daemon.value.code == -32602
    for front, error in (("builder", direct), ("daemon", daemon), ("api", api)):
        assert str(error.value).startswith(f"{NAMES[front](field)} {problem}"), (front, str(error.value))


def test_an_unknown_language_is_refused_in_the_registrys_words() -> None:
    with pytest.raises(ScoreInputError) as direct:
        build_request("x", "x", "klingon")
    with pytest.raises(RpcError) as daemon:
        parse_request({"candidate": "x", "references": ["x"], "language": "klingon"})
    with pytest.raises(ScoreInputError) as api:
        refscore.score([], [], "klingon")  # even with nothing to score
    assert "klingon" in str(direct.value) and str(daemon.value) == str(direct.value) == str(api.value)
    with pytest.raises(RpcError, match="request.language is true/false, not a string"):
        parse_request({"candidate": "x", "references": ["x"], "language": True})
