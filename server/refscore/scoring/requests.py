"""The one builder of score requests: the command line, the editor, the daemon, the Python API and
the grader each turn what they were given into ``ScoreRequest``s here, so the text, the references,
the language and the context are checked one way (the settings that change a number are checked by
the settings schema, ``ScoreSettings.checked``, before they get here).

A front end names the fields as its users know them (``names``: ``request.candidate`` for the
daemon's JSON, ``candidate 3`` for the API's lists) and turns the one ``ScoreInputError`` into its
own answer (an exit status, a JSON-RPC error, a diagnostic)."""

from __future__ import annotations

from typing import Any, Callable

from .. import languages
from ..errors import ScoreInputError, refuse_lone_surrogates
from ..settings_schema import DEFAULT_SETTINGS, ScoreSettings
from .report import ScoreRequest


def build_request(candidate: Any, references: Any, language: Any, context: Any = None, *,
                  settings: ScoreSettings = DEFAULT_SETTINGS, explain: bool = True, live: bool = False,
                  names: Callable[[str], str] = str) -> ScoreRequest:
    """A checked request: ``candidate`` a string, ``references`` a string or a non-empty sequence
    of strings, ``language`` a name or alias the registry knows (the request carries its canonical
    name), ``context`` None or a string; no text holds a lone surrogate. ``ScoreInputError``
    names the field that is wrong, as ``names`` spells it."""
    text = _text(candidate, names("candidate"))
    group = _references(references, names("references"))
    spec_name = checked_language(language, names("language"))
    if context is not None:
        context = _text(context, names("context"))
    return ScoreRequest(text, group, spec_name, context, settings=settings, explain=explain, live=live)


def _kind(value: Any) -> str:
    return "true/false" if isinstance(value, bool) else "null" if value is None else type(value).__name__


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ScoreInputError(f"{name} is {_kind(value)}, not a string")
    refuse_lone_surrogates(value, name)
    return value


def _references(value: Any, name: str) -> tuple[str, ...]:
    group = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, (list, tuple)) else ()
    if not group or not all(isinstance(text, str) for text in group):
        raise ScoreInputError(f"{name} must be a string or a non-empty list of strings")
    for text in group:
        refuse_lone_surrogates(text, f"a reference in {name}" if len(group) > 1 else name)
    return group


def checked_language(value: Any, name: str = "language") -> str:
    """The registry's canonical name for ``value`` (``ScoreInputError`` naming ``name``)."""
    if not isinstance(value, str):
        raise ScoreInputError(f"{name} is {_kind(value)}, not a string")
    try:
        return languages.get(value).name
    except languages.UnknownLanguageError as error:
        raise ScoreInputError(str(error)) from None


def request_from_dict(data: dict[str, Any]) -> ScoreRequest:
    """Rebuild a request from ``report.request_to_dict`` output (its settings unchecked: the
    daemon checks them first, ``service.requests``)."""
    return build_request(data["candidate"], data["references"], data["language"], data.get("context"),
                         settings=ScoreSettings.from_flat(data), explain=bool(data.get("explain", True)),
                         live=bool(data.get("live", False)))
