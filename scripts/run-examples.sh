#!/usr/bin/env bash
# The main job on the bundled examples: score each candidate against its reference (CodeBLEU and
# CodeBERTScore), then grade all of them into CSV/JSON/HTML reports under .refscore-out/examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
.venv/bin/refscore score --no-daemon examples/python/reference.py examples/python/candidate_*.py
.venv/bin/refscore score --no-daemon --metrics codebleu examples/java/Reference.java examples/java/Candidate*.java
.venv/bin/refscore grade --no-daemon --progress lines --mapping examples/grade.toml -o .refscore-out/examples
echo "reports: .refscore-out/examples/grade.html (also .csv, .json)"
