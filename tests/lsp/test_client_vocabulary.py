"""The VS Code client's labels, weak-token threshold and heat buckets are the server's
(``refscore.vocabulary``): ``src/vocabulary.generated.ts`` is what ``scripts/vocabulary.py``
generates, ``package.json`` repeats the same threshold, backends and bucket colours, and no other
client module keeps its own copy."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from refscore import settings_schema, vocabulary

from tests.support.client_scripts import CLIENT, client_script

FIX = "run `python client-vscode/scripts/vocabulary.py` (client-vscode/scripts/build.sh does)"


def _generator():
    return client_script("vocabulary")


def test_generated_file_and_manifest_match_the_server() -> None:
    assert _generator().stale() == [], FIX
    text = (CLIENT / "src" / "vocabulary.generated.ts").read_text(encoding="utf-8")
    assert f"WEAK_TOKEN_THRESHOLD = {vocabulary.WEAK_TOKEN_THRESHOLD}" in text
    for name, label in vocabulary.MISSING_LABELS.items():
        assert f"{json.dumps(name)}: {json.dumps(label)}" in text


def test_a_drifted_manifest_is_named() -> None:
    gen = _generator()
    manifest = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    properties["refscore.weakTokens.threshold"]["default"] = 0.5
    properties["refscore.backend"]["enum"] = [*settings_schema.BACKENDS[:-1], None]
    manifest["contributes"]["colors"] = manifest["contributes"]["colors"][:-1]
    problems = gen.manifest_problems(manifest)
    assert len(problems) == 3 and "0.5" in problems[0] and "onnx-int8" in problems[1] and "fair" in problems[2]


def test_client_modules_read_the_generated_vocabulary_only() -> None:
    sources = {p.name: p.read_text(encoding="utf-8") for p in (CLIENT / "src").glob("*.ts")
               if p.name != "vocabulary.generated.ts"}
    for name in ("summary.ts", "heat.ts", "heatView.ts"):
        assert 'from "./vocabulary.generated"' in sources[name], name
    for name, text in sources.items():
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)  # comments may speak of the values
        assert not re.search(r"\b0\.45\b|\b0\.15\b", code), name
        assert '"weighted n-gram"' not in text and '"weakly matched' not in text, name
        assert not re.search(r'\[\s*"weak",\s*"low",\s*"fair"\s*\]', text), name


def test_check_mode_passes_on_the_committed_files() -> None:
    run = subprocess.run([sys.executable, str(CLIENT / "scripts" / "vocabulary.py"), "--check"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
