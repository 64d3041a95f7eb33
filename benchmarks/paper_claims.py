"""The CodeBERTScore paper's table on its own protocol, from a `refscore eval --protocol paper --out`
result, as a report (docs/reports/paper-protocol.json) that ``claims.py`` reads for
docs/correlation-paper.md (its table and every figure its text quotes).

Usage::

    refscore eval --protocol paper --paper-folds CODE-BERT-SCORE/evaluation/constants.py --out paper.json
    .venv/bin/python benchmarks/paper_claims.py --result paper.json --report docs/reports/paper-protocol.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_file import write_report  # noqa: E402

LANGUAGES = ["python", "java", "js", "cpp"]
COMMAND = ("refscore eval --protocol paper --paper-folds CODE-BERT-SCORE/evaluation/constants.py --out paper.json "
           "&& .venv/bin/python benchmarks/paper_claims.py --result paper.json --report docs/reports/paper-protocol.json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--result", required=True, help="refscore eval --protocol paper --out FILE")
    parser.add_argument("--report", required=True, help="where the report goes (docs/reports/paper-protocol.json)")
    args = parser.parse_args(argv)
    result = json.loads(Path(args.result).read_text(encoding="utf-8"))
    if result.get("protocol") != "paper":
        print(f"{args.result}: not a `refscore eval --protocol paper` result", file=sys.stderr)
        return 2
    languages = [lang for lang in LANGUAGES if all(lang in row for row in result["rows"].values())]
    write_report(Path(args.report), {"protocol": "paper", "languages": languages, "rows": result["rows"]}, COMMAND)
    return 0


if __name__ == "__main__":
    sys.exit(main())
