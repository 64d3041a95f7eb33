"""Errors a user can act on, each with its documented exit code."""

from __future__ import annotations

import re

EXIT_OK = 0
EXIT_BELOW_THRESHOLD = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_LANGUAGE = 4
EXIT_INTERNAL = 5
#: The daemon's runtime directory is unsafe: a symbolic link, another user's, or not a directory.
EXIT_UNSAFE_RUNTIME_DIR = 6


class RefScoreError(Exception):
    """An error with a one-line message for the user and an exit code."""

    exit_code = EXIT_INTERNAL


class ScoreInputError(RefScoreError, ValueError, AssertionError):
    """Bad arguments to a Python API (lengths that differ, an unknown language, bad weights).

    Both a ValueError and an AssertionError: ``codebleu.calc_codebleu`` and
    ``code_bert_score.score`` raise AssertionError for these, so a drop-in user's ``except
    AssertionError`` catches it, and so do ``except ValueError`` and ``except RefScoreError``."""

    exit_code = EXIT_USAGE


class MissingIdfWeightError(ScoreInputError, KeyError):
    """An ``idf`` dict without a weight for a token of the texts: ``code_bert_score.score``
    raises KeyError for it, so this is a KeyError too (and a ``ScoreInputError``)."""

    def __str__(self) -> str:  # the message as written, not KeyError's quoted repr
        return str(self.args[0]) if self.args else ""


class UsageError(RefScoreError):
    """A command line that cannot work (exit 2)."""

    exit_code = EXIT_USAGE


class InputFileError(RefScoreError):
    """A file that cannot be scored: missing, unreadable, binary, not UTF-8, too large."""

    exit_code = EXIT_INPUT


class LanguageError(RefScoreError):
    """The language is unknown or cannot be told from the file name."""

    exit_code = EXIT_LANGUAGE


#: A lone surrogate: what Python makes of an undecodable file-name byte or an escaped ``"\udc00"``
#: in JSON; not text, it cannot be encoded (the one pattern every module matches them with).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> str | None:
    """``U+DC00 at character 12`` for the first lone surrogate in ``text``, or None (at once for
    ASCII text, which every request of an edited file is checked again for: ``str.isascii`` reads
    the string's own flag)."""
    if text.isascii():
        return None
    match = LONE_SURROGATE.search(text)
    return None if match is None else f"U+{ord(match[0]):04X} at character {match.start()}"


def refuse_lone_surrogates(text: str, what: str) -> None:
    """A ``ScoreInputError`` for a text holding a lone surrogate (not text: it cannot be encoded,
    so no metric could read it), naming ``what``, the code point and where it is."""
    where = lone_surrogate(text)
    if where is not None:
        raise ScoreInputError(f"{what} holds a lone surrogate ({where}), which is not text")


def refuse_one_string(per: str, **arguments: object) -> None:
    """A ``ScoreInputError`` when an argument that takes a list with one entry per ``per`` is one
    string (or bytes): a string is a sequence of characters, each of which would be scored."""
    given = [name for name, value in arguments.items() if isinstance(value, (str, bytes))]
    if given:
        which = f" ({' and '.join(given)} given as one)" if len(arguments) > 1 else ""
        raise ScoreInputError(f"{' and '.join(arguments)}: a list with one entry per {per}, not one string{which}")
