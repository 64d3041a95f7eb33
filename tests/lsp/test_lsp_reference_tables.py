"""A reference's position tables and prose spans are made once per text, not once per version
of the candidate that is edited against it."""

from __future__ import annotations

from pathlib import Path

from pygls.workspace.position_codec import PositionCodec

from refscore import languages
from refscore.lsp.references import ReferenceChoice
from refscore.lsp.results import Result

REFERENCE = 'def f(x):\n    """Doc."""\n    return x + 1  # note\n'


def _result(version: int, text: str, reference: str = REFERENCE, codec: PositionCodec | None = None) -> Result:
    choice = ReferenceChoice((Path("/w/f.ref.py"),), "convention")
    return Result("file:///w/f.py", version, text, languages.get("python"), choice, (reference,),
                  ("file:///w/f.ref.py",), codec=codec or PositionCodec())


def test_versions_of_a_candidate_share_their_references_tables() -> None:
    first, second = _result(1, "def f(x):\n    return x\n"), _result(2, "def f(y):\n    return y\n")
    assert second.reference_positions(0) is first.reference_positions(0)
    assert second.reference_prose(0) is first.reference_prose(0)
    assert [REFERENCE[a:b] for a, b in first.reference_prose(0)] == ['"""Doc."""', "# note"]


def test_another_reference_text_or_encoding_gets_its_own() -> None:
    first = _result(1, "x = 1\n")
    other = _result(2, "x = 1\n", reference=REFERENCE.replace("x + 1", "x + 2"))
    assert other.reference_positions(0) is not first.reference_positions(0)
    assert other.reference_positions(0).text == other.reference_texts[0]
    from lsprotocol.types import PositionEncodingKind

    utf8 = _result(3, "x = 1\n", reference="s = 'é'\nt = 1\n", codec=PositionCodec(PositionEncodingKind.Utf8))
    utf16 = _result(4, "x = 1\n", reference="s = 'é'\nt = 1\n")
    assert utf8.reference_positions(0) is not utf16.reference_positions(0)
    assert utf8.reference_positions(0).position(7).character == 8  # 'é' is two UTF-8 bytes
    assert utf16.reference_positions(0).position(7).character == 7
