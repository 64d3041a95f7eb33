"""A daemon started by another installation of RefScore that lacks CodeBERTScore's runtime (a
CodeBLEU-only ``pip install refscore``, the VS Code bundle's bare Python) is replaced by a client
that has it, instead of answering every CodeBERTScore request with "not installed: pip install
'refscore[bert]'" to a user who did. That daemon is this interpreter with ``torch`` and
``transformers`` made unimportable (``sys.modules[name] = None``), as in a fresh ``python3``."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.daemons import refscore, wait_until
from tests.support.timing import hang_guard
from tests.service.test_daemon import EXAMPLES, Place, place  # noqa: F401 - the fixture

DAEMON_WITHOUT_TORCH = [sys.executable, "-c", ("import sys; sys.modules['torch'] = sys.modules['transformers'] = None; "
                                               "from refscore.cli import main; sys.exit(main(['daemon', 'run']))")]


def test_a_daemon_without_the_bert_runtime_is_replaced_by_a_client_with_it(place: Place) -> None:  # noqa: F811
    bare = subprocess.Popen(DAEMON_WITHOUT_TORCH, env=place.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: place.socket.exists() and (place.run / "daemon.json").exists())
        assert place.info()["pid"] == bare.pid
        status = refscore("daemon", "status", "--json", env=place.env)  # looking replaces nothing
        assert status.returncode == 0 and json.loads(status.stdout)["pid"] == bare.pid, status.stderr
        score = refscore("score", str(EXAMPLES / "python/reference.py"), str(EXAMPLES / "python/candidate_close.py"),
                         "--json", env=place.env)
        assert score.returncode == 0, score.stderr
        report = json.loads(score.stdout.splitlines()[0])
        assert "not installed" not in score.stderr and not report.get("errors"), (score.stderr, report.get("errors"))
        assert report["codebertscore"] is not None and report["codebertscore"]["model"] == "all-MiniLM-L6-v2"
        assert bare.wait(timeout=hang_guard()) == 0  # it shut down cleanly when asked
        assert place.info()["pid"] != bare.pid
        assert "without CodeBERTScore's runtime" in place.log_text()
    finally:
        if bare.poll() is None:
            bare.kill()
            bare.wait()
