#!/usr/bin/env bash
# The main job on the bundled examples: score every candidate against its reference.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/refscore score examples/python/reference.py examples/python/candidate_*.py
.venv/bin/refscore score examples/java/Reference.java examples/java/Candidate*.java
