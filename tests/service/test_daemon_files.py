"""The daemon's files (issue 25): what sits where its socket goes, and its runtime directory."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.daemons import refscore, stop_daemon_in
from tests.service.test_daemon import Place


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch):
    spot = Place(Path(tempfile.mkdtemp(prefix="rsfile-")), monkeypatch)
    spot.run.mkdir(mode=0o700)
    yield spot
    stop_daemon_in(spot.run)
    shutil.rmtree(spot.root, ignore_errors=True)


@pytest.mark.parametrize("kind,says", [("folder", "is a directory"), ("file", "is a regular file"),
                                       ("link", "is a symbolic link")])
def test_something_that_is_not_a_socket_at_daemon_sock_is_one_line_and_kept(place: Place, kind: str,
                                                                            says: str) -> None:
    if kind == "folder":
        place.socket.mkdir()
    elif kind == "file":
        place.socket.write_text("my notes\n")
    else:
        (place.root / "victim").write_text("keep\n")
        place.socket.symlink_to(place.root / "victim")
    result = refscore("daemon", "start", "--no-preload", env=place.env)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert says in result.stderr and "not the daemon's socket" in result.stderr
    assert "Traceback" not in place.log_text() and "not the daemon's socket" in place.log_text()
    if kind == "file":
        assert place.socket.read_text() == "my notes\n"  # never silently deleted
    elif kind == "folder":
        assert place.socket.is_dir()
    else:
        assert place.socket.is_symlink() and (place.root / "victim").read_text() == "keep\n"


def test_daemon_json_is_private_and_never_written_through_a_link(place: Place) -> None:
    started = refscore("daemon", "start", "--no-preload", "--idle-timeout", "600", env=place.env)
    assert started.returncode == 0, started.stderr
    info = place.run / "daemon.json"
    assert not info.is_symlink() and oct(info.stat().st_mode & 0o777) == "0o600"
    assert refscore("daemon", "stop", env=place.env).returncode == 0
    from refscore.safe_write import OutputFileError
    from refscore.service.paths import write_private_json

    (place.root / "victim").write_text("keep\n")
    os.symlink(place.root / "victim", info)
    with pytest.raises(OutputFileError, match="symbolic link"):
        write_private_json(info, {"pid": 1})
    assert (place.root / "victim").read_text() == "keep\n"


def test_a_file_where_the_log_folder_goes_is_one_line_not_an_internal_error(place: Place) -> None:
    place.log.write_text("my notes\n")
    env = {**place.env, "REFSCORE_LOG_DIR": str(place.log)}
    result = refscore("daemon", "start", "--no-preload", env=env)
    assert result.returncode == 3, (result.stdout, result.stderr)
    says = (f"refscore: the daemon's log folder {place.log} cannot be made: a file is in the way; move it away "
            "or set REFSCORE_LOG_DIR to a folder")
    assert result.stderr.splitlines() == [says]
    assert place.log.read_text() == "my notes\n"


@pytest.mark.parametrize("name", ["daemon.lock", "start.lock"])
def test_a_folder_where_a_lock_file_goes_is_one_line_and_kept(place: Place, name: str) -> None:
    (place.run / name).mkdir()
    result = refscore("daemon", "start", "--no-preload", env=place.env)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert f"{place.run / name} is a folder, not a lock file" in result.stderr
    assert "internal error" not in result.stderr and (place.run / name).is_dir()
    status = refscore("daemon", "status", env=place.env)
    assert (status.returncode, status.stdout.strip()) == (1, "refscore daemon: not running"), status.stderr
