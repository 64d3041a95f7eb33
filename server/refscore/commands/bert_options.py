"""The settings options of ``score`` and ``grade`` (``--metrics``, ``--weights``, ``--model``,
``--idf`` ...) turned into the one ``ScoreSettings`` their requests carry."""

from __future__ import annotations

import argparse
from typing import Sequence

from ..errors import InputFileError
from ..safe_read import open_regular, user_path
from ..settings_schema import IDF_FROM_REFERENCES, EncoderChoice, ScoreSettings
from .options import behaviour_inputs, checked, parse_weights

#: The largest IDF file read (a vocabulary of weights is a few MB).
MAX_IDF_BYTES = 64 * 1024 * 1024


def idf_setting(text: str | None) -> str | None:
    """``--idf`` as requests carry it: ``references`` or an absolute path (the daemon has its own
    working folder). The settings schema checks the text first (blank: none, as in a daemon
    request; a value it refuses is a usage error). A missing, special (FIFO, device), oversized or
    unreadable file (not JSON, not token id -> finite weight) is an input error (exit 3), found
    before anything is scored."""
    if text is None:
        return None
    chosen = checked("idf", text)
    if chosen is None or chosen == IDF_FROM_REFERENCES:
        return chosen
    path = user_path(chosen)
    try:
        open_regular(path, MAX_IDF_BYTES).close()
    except InputFileError as error:
        raise InputFileError(f"IDF file {error}".replace(": no such file", ": no such IDF file")) from None
    from ..embed.files import load_idf

    try:  # a broken file is one line now, not an error on every scored pair
        load_idf(path)
    except (ValueError, InputFileError) as error:
        raise InputFileError(f"IDF file {error}") from None
    return str(path.resolve())


def encoder_choice(args: argparse.Namespace) -> EncoderChoice:
    """``--model``, ``--layer``, ``--device``, ``--idf`` and ``--backend`` as requests carry them
    (``--idf`` checked and absolute: ``idf_setting``)."""
    return EncoderChoice(args.model, args.layer, args.device, idf_setting(args.idf), args.backend)


def settings_from_args(args: argparse.Namespace, metrics: Sequence[str]) -> ScoreSettings:
    """Every setting of a ``score`` or ``grade`` command line, checked (``--inputs`` read)."""
    return ScoreSettings(tuple(metrics), parse_weights(args.weights), args.codebleu_rule, encoder_choice(args),
                         behaviour_inputs(args), args.unsandboxed)
