"""``safe_write``: outputs replace regular files only, never a device, a FIFO, a folder or a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from refscore.cli import main
from refscore.eval.store import ScoreStore
from refscore.safe_write import OutputFileError, check_writable, open_append, replace_file


def _plant(tmp_path: Path, kind: str) -> Path:
    """Something that is not a regular file at ``tmp_path/out``: a FIFO, a link, a folder."""
    path = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        (tmp_path / "victim.txt").write_text("keep me\n")
        os.symlink(tmp_path / "victim.txt", path)
    elif kind == "dangling":
        os.symlink(tmp_path / "nowhere.txt", path)
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("kind,says", [("fifo", "named pipe"), ("link", "symbolic link"),
                                       ("dangling", "symbolic link"), ("folder", "is a folder")])
def test_replace_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str, says: str) -> None:
    path = _plant(tmp_path, kind)
    before = os.lstat(path)
    for attempt in (lambda: replace_file(path, "x"), lambda: check_writable(path, "--out"),
                    lambda: open_append(path)):
        with pytest.raises(OutputFileError, match=says):
            attempt()
    after = os.lstat(path)
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (before.st_ino, stat.S_IFMT(before.st_mode))
    assert not (tmp_path / "nowhere.txt").exists()
    if kind == "link":
        assert (tmp_path / "victim.txt").read_text() == "keep me\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_a_character_device_is_refused_and_left_alone() -> None:
    with pytest.raises(OutputFileError, match="character device"):
        replace_file("/dev/null", "x")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_a_regular_file_is_replaced_atomically_with_the_umask_mode(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "r.json"
    replace_file(path, "first")
    replace_file(path, b"second")
    assert path.read_bytes() == b"second"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()
    replace_file(path, "private", mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with open_append(tmp_path / "log.jsonl") as handle:
        handle.write(b"a\n")
    with open_append(tmp_path / "log.jsonl") as handle:
        handle.write(b"b\n")
    assert (tmp_path / "log.jsonl").read_bytes() == b"a\nb\n"


def test_a_link_planted_in_the_output_folder_is_never_followed_by_the_scores_file(tmp_path: Path) -> None:
    victim = tmp_path / "keep.py"
    victim.write_text("print('mine')\n")
    os.symlink(victim, tmp_path / "scores.npz")
    store = ScoreStore(None)
    store.put("u", ("a",), ["k"], {"a": [0.5]})
    with pytest.raises(OutputFileError, match="symbolic link"):
        store.save({}, path=tmp_path / "scores.npz")
    assert victim.read_text() == "print('mine')\n"
    store.save({}, path=tmp_path / "real.npz")
    with np.load(tmp_path / "real.npz") as npz:
        assert "__meta__" in npz


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# -- refscore eval: every output checked before anything is scored --------------------------------


def _eval(tmp_path: Path, *args: str) -> int:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    return main(["eval", "--data", str(data), "--metrics", "chrf", "--languages", "python", *args])


@pytest.mark.parametrize("kind", ["fifo", "link", "folder"])
def test_eval_save_scores_never_replaces_what_is_not_a_regular_file(tmp_path: Path, capsys, kind: str) -> None:
    path = _plant(tmp_path, kind)
    assert _eval(tmp_path, "--no-cache", "--save-scores", str(path)) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"refscore eval: --save-scores {path}:")
    assert not path.with_suffix(".cmd").exists()
    if kind == "link":
        assert (tmp_path / "victim.txt").read_text() == "keep me\n"


def test_eval_save_scores_on_a_device_is_refused(tmp_path: Path, capsys) -> None:
    assert _eval(tmp_path, "--no-cache", "--save-scores", "/dev/null") == 3
    assert "character device" in capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_eval_never_writes_over_source_code(tmp_path: Path, capsys) -> None:
    keep = tmp_path / "keep.py"
    keep.write_text("x = 1\n")
    assert _eval(tmp_path, "--no-cache", "--save-scores", str(keep)) == 2
    assert "names a python source file" in capsys.readouterr().err
    assert keep.read_text() == "x = 1\n" and not (tmp_path / "keep.cmd").exists()


@pytest.mark.parametrize("where,says", [("/dev/full", "character device"), ("/proc/x/r.json", "cannot write a file there"),
                                        ("folder", "is a folder")])
def test_eval_out_that_cannot_be_written_fails_before_scoring(tmp_path: Path, capsys, where: str, says: str) -> None:
    if where == "folder":
        where = str(tmp_path)
    assert _eval(tmp_path, "--out", where) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"refscore eval: --out {where}: ") and says in err[0]


def test_eval_out_and_report_on_one_file_is_a_usage_error(tmp_path: Path, capsys) -> None:
    same = tmp_path / "r.txt"
    assert _eval(tmp_path, "--out", str(same), "--report", str(same)) == 2
    assert "--out is written there too" in capsys.readouterr().err
    assert not same.exists()
