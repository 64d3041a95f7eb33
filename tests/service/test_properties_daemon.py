"""Property: whatever bytes a client sends the daemon socket, the daemon goes on serving others.

One real daemon (its own runtime directory, 1 MiB message limit) takes random sequences of
chunks on raw connections: random bytes, header blocks with bad, negative, huge or lying
``Content-Length`` values, framed non-JSON and JSON of any shape, JSON-RPC requests with random
methods, ids and params (score requests of random fields among them, CodeBLEU only), oversized
announcements, endless headers, connections closed mid-message. While the last such connection is still open, a
well-formed client connects and gets the right CodeBLEU score; the daemon's pid never changes
and its log never shows a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
for _path in (str(ROOT), str(ROOT / "server")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from refscore.scoring.codebleu import score_codebleu  # noqa: E402
from refscore.scoring.report import ScoreRequest  # noqa: E402
from refscore.service import DaemonClient, wire  # noqa: E402

from tests.support.daemons import alive, refscore, stop_daemon_in  # noqa: E402

EXAMPLES_DIR = ROOT / "examples" / "python"
REFERENCE = (EXAMPLES_DIR / "reference.py").read_text()
CANDIDATE = (EXAMPLES_DIR / "candidate_close.py").read_text()
LIMIT_BYTES = 1024 * 1024  # --max-message-mb 1

# ----------------------------------------------------------------------------- strategies

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
_ids = st.none() | st.integers() | st.text(max_size=6) | st.floats(allow_nan=False) | st.lists(st.integers(), max_size=2)
#: every method but ``shutdown`` (which stops the daemon, as it should)
_methods = st.sampled_from(["score", "status", "ping", "initialize", "$/cancelRequest", "nope", "", "rpc_score",
                            "_call", "$/exit"]) | st.text(max_size=12).filter(lambda m: m != "shutdown")
#: score requests whose fields are real-looking or random (never CodeBERTScore: no model loads)
_requests = st.fixed_dictionaries({}, optional={
    "candidate": st.text(max_size=200) | _json,
    "references": st.lists(st.text(max_size=200), max_size=3) | _json,
    "language": st.sampled_from(["python", "java", "rust", "klingon", "", "PYTHON"]) | _json,
    "metrics": st.just(["codebleu"]) | st.lists(st.sampled_from(["codebleu", "bleu", ""]), max_size=3),
    "weights": st.lists(st.floats(), max_size=5) | _json,
    "codebleu_rule": st.sampled_from(["native", "compat", "other"]) | _json,
}).map(lambda fields: {**fields, "metrics": fields.get("metrics", ["codebleu"])})


def _framed(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _rpc(method: str, msg_id: object, params: object) -> bytes:
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        message["id"] = msg_id
    return _framed(json.dumps(message).encode())


_lengths = st.sampled_from([b"-1", b"abc", b"", b" 5 ", b"0x10", b"1e3", b"9223372036854775808",
                            b"99999999999999999999999", b"%d" % (LIMIT_BYTES + 1), b"3"]) | \
    st.integers(0, 64).map(lambda n: b"%d" % n)
_ends = st.sampled_from([b"\r\n\r\n", b"\n\n", b"\r\n", b""])

chunks = st.one_of(
    st.binary(max_size=256),
    st.just(b"X" * (wire.MAX_HEADER_BYTES + 1)),  # a header that never ends
    st.builds(lambda length, end, body: b"Content-Length: " + length + end + body, _lengths, _ends,
              st.binary(max_size=64)),
    st.builds(lambda name, value: name + b": " + value + b"\r\n\r\n", st.binary(max_size=16), st.binary(max_size=16)),
    _json.map(lambda value: _framed(json.dumps(value).encode())),
    st.binary(max_size=64).map(_framed),
    st.builds(_rpc, _methods, _ids, _json),
    st.builds(lambda msg_id, request: _rpc("score", msg_id, {"request": request}), st.integers(0, 9), _requests),
    st.builds(lambda msg_id: _rpc("$/cancelRequest", None, {"id": msg_id}), st.integers(0, 9)),
)
#: a chunk, then whether the connection closes after it (the next chunk opens a new one)
sessions = st.lists(st.tuples(chunks, st.booleans()), min_size=1, max_size=6)

# ----------------------------------------------------------------------------- the daemon


@pytest.fixture(scope="module")
def daemon():
    """A real daemon in a private runtime directory, for the whole module; stopped at its end."""
    root = Path(tempfile.mkdtemp(prefix="rsp-"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REFSCORE_RUNTIME_DIR", str(root / "run"))
        patch.setenv("REFSCORE_LOG_DIR", str(root / "log"))
        patch.setenv("HF_HUB_OFFLINE", "1")
        for name in ("REFSCORE_DAEMON_IDLE", "REFSCORE_DAEMON_TRANSPORT", "REFSCORE_NO_DAEMON"):
            patch.delenv(name, raising=False)
        started = refscore("daemon", "start", "--no-preload", "--max-message-mb", "1", env=dict(os.environ))
        assert started.returncode == 0, started.stderr
        info = json.loads((root / "run" / "daemon.json").read_text())
        try:
            yield root, info["pid"]
        finally:
            stop_daemon_in(root / "run")
            shutil.rmtree(root, ignore_errors=True)


def _send(run_dir: Path, session: list[tuple[bytes, bool]]) -> socket.socket | None:
    """Send the chunks; the connection still open at the end (if any) is returned."""
    sock: socket.socket | None = None
    for chunk, close_after in session:
        if sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(5)
            sock.connect(str(run_dir / "daemon.sock"))
        try:
            sock.sendall(chunk)
        except OSError:  # the daemon closed it (framing error): that is allowed
            close_after = True
        if close_after:
            sock.close()
            sock = None
    return sock


@pytest.mark.timeout(300)
@settings(max_examples=100, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(session=sessions)
def test_random_frames_never_stop_a_well_formed_client(daemon, session) -> None:
    root, pid = daemon
    run_dir = root / "run"
    expected = score_codebleu([REFERENCE], CANDIDATE, "python", explain=False).score
    left_open = _send(run_dir, session)
    try:
        with DaemonClient(autostart=False) as client:
            assert client.connect()["pid"] == pid
            report = client.score(ScoreRequest(CANDIDATE, (REFERENCE,), "python", metrics=("codebleu",)))
            assert report.codebleu is not None
            assert report.codebleu.score == pytest.approx(expected, abs=1e-12)
    finally:
        if left_open is not None:
            left_open.close()
    assert alive(pid)
    log = "".join(p.read_text(errors="replace") for p in sorted((root / "log").glob("daemon*")))
    assert "Traceback" not in log, log[-3000:]  # bad input: one line in the log, never a traceback
