"""Write ``server/refscore/combined/domain.json``: the range of each length input the shipped
combined number's fit saw, over the data it was fitted on (HumanEval in four languages and
CoNaLa, ``/work/shared/data`` or ``--data``). The editor shows the combined number only for code
inside these ranges (``refscore.combined.domain``).

    .venv/bin/python scripts/combined_domain.py [--data DIR]

Only inputs made from token counts are recorded (``inputs.length_inputs``, the fit's own
function): the similarities are bounded by construction, and the counts are what puts a whole
file outside data made of single functions.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from refscore.combined.domain import DOMAIN_PATH, RECORDED  # noqa: E402
from refscore.combined.inputs import length_inputs  # noqa: E402
from refscore.combined.model import DEFAULT_PATH, digest, load_model  # noqa: E402
from refscore.eval.data import default_data_dir, load_conala, load_humaneval  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the evaluation data folder")
    args = parser.parse_args()
    data = args.data or default_data_dir()
    datasets = list(load_model().get("fitted", {}).get("datasets", {}))
    low = {name: math.inf for name in RECORDED}
    high = {name: -math.inf for name in RECORDED}
    counts: dict[str, int] = {}
    for dataset in datasets:
        items = load_conala(data) if dataset == "conala" else load_humaneval(data, dataset)
        counts[dataset] = len(items)
        for item in items:
            values = length_inputs(item.candidate, item.references)
            for name in RECORDED:
                low[name], high[name] = min(low[name], values[name]), max(high[name], values[name])
    domain = {"fit": digest(DEFAULT_PATH), "items": counts,  # bounds rounded outwards: every item inside
              "inputs": {name: [math.floor(low[name] * 1e6) / 1e6, math.ceil(high[name] * 1e6) / 1e6]
                         for name in RECORDED}}
    DOMAIN_PATH.write_text(json.dumps(domain, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(domain))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
