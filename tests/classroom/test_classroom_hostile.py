"""Hostile class archives and folders (issue 23's Done-when): zip slip, absolute paths, links,
a zip bomb, 100,000 entries, control characters in names. Each gives one clear error or an
error row; nothing is written outside the output folder and nothing outside the class is read.
Archives are written here with ``zipfile``; the real `refscore grade` reads them."""

from __future__ import annotations

import json
import os
import stat
import struct
import zipfile
from pathlib import Path

import pytest

from refscore.cli import main
from refscore.classroom import safe_zip
from refscore.classroom.safe_zip import read_zip

REF = "def total(nums):\n    result = 0\n    for n in nums:\n        result += n\n    return result\n"
SECRET = "TOP-SECRET-CONTENT = 1\n"

pytestmark = pytest.mark.timeout(300)


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def grade(tmp_path: Path, archive: Path) -> tuple[int, dict]:
    out = tmp_path / "out" / "grade.json"
    code = main(["grade", "-r", str(tmp_path / "ref.py"), str(archive), "--metrics", "codebleu", "--no-cache",
                 "-q", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}


def link_entry(name: str, target: str) -> tuple[zipfile.ZipInfo, str]:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


def test_hostile_entries_are_error_rows_and_nothing_escapes(tmp_path: Path, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "secret.py").write_text(SECRET)
    archive = tmp_path / "class" / "subs.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("alice/sum.py", REF)
        z.writestr("../../evil.py", "print('slip')\n")
        z.writestr("/tmp/absolute_evil.py", "print('abs')\n")
        z.writestr("bob/..\\..\\win_evil.py", "print('win')\n")
        z.writestr("carol/\x1b[31mred.py", "x = 1\n")
        z.writestr(*link_entry("dave/sum.py", str(tmp_path / "secret.py")))
    before = snapshot(tmp_path)
    code, report = grade(tmp_path, archive)
    assert code == 0
    rows = {r["id"]: r for r in report["submissions"]}
    assert rows["alice"]["codebleu_native"] == pytest.approx(1.0) and rows["alice"]["student"] == "alice"
    errors = {r["id"]: r["errors"][0] for r in report["submissions"] if r["student"] is None}
    assert "zip slip" in errors["../../evil.py"] and "absolute path" in errors["/tmp/absolute_evil.py"]
    assert any("zip slip" in e for k, e in errors.items() if "win_evil" in k)
    assert "control characters" in errors["carol/<U+001B>[31mred.py"]
    assert "symbolic link" in rows["dave"]["errors"][0]  # the student's own row says why
    text = (tmp_path / "out" / "grade.json").read_text()
    assert "TOP-SECRET" not in text and "\x1b" not in text and "\\u001b" not in text
    assert snapshot(tmp_path) - before <= {"out", "out/grade.json", "out/grade.jsonl", "out/grade.parquet"}
    assert not Path("/tmp/absolute_evil.py").exists()
    assert "\x1b" not in capsys.readouterr().err


def test_a_link_in_a_class_folder_is_never_followed(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "secret.py").write_text(SECRET)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "sum.py").write_text(SECRET)
    (tmp_path / "class" / "alice").mkdir(parents=True)
    (tmp_path / "class" / "alice" / "sum.py").write_text(REF)
    (tmp_path / "class" / "bob").mkdir()
    (tmp_path / "class" / "bob" / "sum.py").symlink_to(tmp_path / "secret.py")
    (tmp_path / "class" / "carol").symlink_to(outside, target_is_directory=True)
    (tmp_path / "class" / "dora").mkdir()
    (tmp_path / "class" / "dora" / "sum\x1b[2J.py").write_text(REF)
    out = tmp_path / "out.json"
    assert main(["grade", "-r", str(tmp_path / "ref.py"), str(tmp_path / "class"), "--layout", "plain",
                 "--metrics", "codebleu", "--no-cache", "-q", "--json", str(out)]) == 0
    text = out.read_text()
    assert "TOP-SECRET" not in text
    rows = {r["id"]: r for r in json.loads(text)["submissions"]}
    assert "symbolic link" in " ".join(rows["bob"]["errors"])
    assert any("symbolic link to a folder" in " ".join(r["errors"]) for r in rows.values())
    assert "control characters" in rows["dora/sum<U+001B>[2J.py"]["errors"][0] and "\x1b" not in text


def test_a_zip_bomb_is_one_clear_error(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for n in range(4):
            z.writestr(f"s{n}/sum.py", b"#" * (3 * 1024 * 1024))  # 12 MiB of text in about 12 KiB
    assert archive.stat().st_size < 200_000
    monkeypatch.setattr(safe_zip, "MAX_TOTAL_BYTES", 8 * 1024 * 1024)
    before = snapshot(tmp_path)
    code, _ = grade(tmp_path, archive)
    err = capsys.readouterr().err
    assert code == 3 and "zip bomb" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not [p for p in snapshot(tmp_path) - before if not p.startswith("out")]
    assert not list((tmp_path / "out").glob("grade.*"))  # no report of a run that read nothing


def test_a_lying_header_never_gives_more_bytes_than_it_declared(tmp_path: Path, monkeypatch) -> None:
    """A central directory that understates sizes (so the declared total passes the cap): the
    bytes read stop at the declared size and the entry is an error row (bad CRC), not a bomb."""
    archive = tmp_path / "liar.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for n in range(3):
            z.writestr(f"s{n}/sum.py", b"#" * (2 * 1024 * 1024))
    real = zipfile.ZipFile.infolist
    monkeypatch.setattr(zipfile.ZipFile, "infolist", lambda self: [_shrunk(i) for i in real(self)])
    entries = read_zip(archive)
    assert len(entries) == 3 and all(e.data is None and "cannot be read" in (e.error or "") for e in entries)


def _shrunk(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    info.file_size = 10  # what a lying central directory says
    return info


def test_one_entry_over_the_file_cap_is_an_error_row(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "ref.py").write_text(REF)
    archive = tmp_path / "big.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("alice/sum.py", REF)
        z.writestr("bob/sum.py", b"#" * (2 * 1024 * 1024))
    monkeypatch.setattr(safe_zip, "MAX_ENTRY_BYTES", 1024 * 1024)
    code, report = grade(tmp_path, archive)
    rows = {r["id"]: r for r in report["submissions"]}
    assert code == 0 and "over the 1 MiB limit" in rows["bob"]["errors"][0] and rows["alice"]["errors"] == []


def test_100000_entries_are_refused_before_the_directory_is_read(tmp_path: Path, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        for n in range(100_000):
            z.writestr(f"s{n}.py", b"")
    with archive.open("rb") as handle:
        assert safe_zip.declared_entries(handle) == 100_000  # a zip64 end record
    code, _ = grade(tmp_path, archive)
    err = capsys.readouterr().err
    assert code == 3 and "100000 entries, over the limit of 50000" in err and len(err.strip().splitlines()) == 1


def test_not_a_zip_and_a_truncated_zip_are_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "fake.zip").write_text("not a zip at all")
    assert grade(tmp_path, tmp_path / "fake.zip")[0] == 3
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w") as z:
        z.writestr("a/sum.py", REF)
    data = good.read_bytes()
    (tmp_path / "cut.zip").write_bytes(data[:30] + data[-22:])
    assert grade(tmp_path, tmp_path / "cut.zip")[0] == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "not a zip archive" in err


def test_eocd_count_is_read_from_the_record(tmp_path: Path) -> None:
    path = tmp_path / "t.zip"
    with zipfile.ZipFile(path, "w") as z:
        for n in range(3):
            z.writestr(f"{n}.py", "x = 1\n")
    with path.open("rb") as handle:
        assert safe_zip.declared_entries(handle) == 3
    tail = path.read_bytes()[-22:]
    assert tail[:4] == b"PK\x05\x06" and struct.unpack("<H", tail[10:12])[0] == 3
    assert os.path.getsize(path) > 22


def test_a_billion_laughs_metadata_and_a_corrupt_stream_are_no_hang_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text(REF)
    laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [*{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, "
        f"*{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}]\n" for n in range(9))
    laughs += "submission_1:\n  :submitters: *j\n"
    archive = tmp_path / "gs.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("submission_metadata.yml", laughs)
        z.writestr("submission_1/sum.py", REF)
        z.writestr("submission_2/sum.py", REF * 50)
    data = bytearray(archive.read_bytes())
    at = data.find(b"submission_2/sum.py", 0) + len("submission_2/sum.py")  # the local header's name ends here
    data[at + 10:at + 20] = b"\xff" * 10  # inside the deflate stream
    archive.write_bytes(bytes(data))
    code, report = grade(tmp_path, archive)
    rows = {r["student_id"]: r for r in report["submissions"]}
    assert code == 0 and rows["1"]["codebleu_native"] == pytest.approx(1.0)  # named by folder: the submitters are nonsense
    assert rows["2"]["errors"] and "cannot be read" in rows["2"]["errors"][0]
