"""``python -m refscore.languages [--json]``: the registered languages, for people and for clients
(the VS Code client's build generates its language list from ``--json``)."""

from __future__ import annotations

import argparse
import json
import sys

from . import describe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m refscore.languages",
                                     description="List the languages RefScore scores.")
    parser.add_argument("--json", action="store_true", help="one JSON array of language records")
    args = parser.parse_args(argv)
    records = describe()
    if args.json:
        json.dump(records, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for r in records:
        print(f"{r['name']:<11} lsp: {', '.join(r['lsp_ids']):<28} ext: {' '.join(r['extensions'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
