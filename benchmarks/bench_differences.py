"""Does the ranked list of differences point at a planted slip? Top-1 and top-3 line hit rates of
the new ranking (``scoring.differences``) beside today's weakest-token ranking (the candidate's
CodeBERTScore tokens, weakest first, as the editor's weak-token highlights order them).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_differences.py [--verbose] [--json FILE]

The 40 cases (benchmarks/differences_cases.py, Python, Java, JavaScript, C++) each plant one slip
in a near-copy of the reference and in a restyled version of it; both are scored with CodeBLEU
and CodeBERTScore (the embedded all-MiniLM-L6-v2, layer 6, on the CPU) in this process. A ranking
hits at k when one of its first k distinct candidate lines is a bug line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from differences_cases import BASES, CASES, apply  # noqa: E402
from refscore.metrics.codebertscore_result import BertScore  # noqa: E402
from refscore.scoring.differences import find_differences  # noqa: E402
from refscore.scoring.report import ScoreReport, ScoreRequest  # noqa: E402
from refscore.scoring.scorer import LocalScorer  # noqa: E402

VARIANTS = ("near", "restyled")


def distinct(lines: list[int]) -> list[int]:
    seen: list[int] = []
    for line in lines:
        if line not in seen:
            seen.append(line)
    return seen


def ranked_lines(candidate: str, reference: str, report: ScoreReport) -> list[int]:
    """Candidate lines of the ranked differences, most significant first."""
    found = find_differences(candidate, (reference,), report)
    return distinct([d.range[0] for d in found.differences])


def weakest_lines(candidate: str, bert: BertScore | None) -> list[int]:
    """Candidate lines of the CodeBERTScore tokens, weakest first (blank tokens left out)."""
    if bert is None:
        return []
    tokens = sorted((t for t in bert.candidate_tokens if candidate[t.start:t.end].strip()),
                    key=lambda t: (t.similarity, t.start))
    return distinct([candidate.count("\n", 0, t.start) for t in tokens])


def rank_of(row: dict, key: str) -> int | str:
    """The 1-based rank of the first bug line in a ranking ("-": not in it)."""
    return next((i + 1 for i, line in enumerate(row[key]) if line in row["bugs"]), "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="one line per case")
    parser.add_argument("--json", metavar="FILE", help="write every case's rankings to FILE")
    args = parser.parse_args()
    rows = []
    for case in CASES:
        language, reference, restyled = BASES[case.base]
        for variant, source, edits in (("near", reference, case.near), ("restyled", restyled, case.restyled)):
            text, bugs = apply(source, edits)
            rows.append({"case": case.name, "slip": case.slip, "variant": variant, "language": language,
                         "candidate": text, "reference": reference, "bugs": sorted(bugs)})
    scorer = LocalScorer()
    start = time.perf_counter()
    reports = scorer.score_many([ScoreRequest(r["candidate"], (r["reference"],), r["language"]) for r in rows])
    scored = time.perf_counter() - start
    start = time.perf_counter()
    for row, report in zip(rows, reports):
        row["ranked"] = ranked_lines(row["candidate"], row["reference"], report)
        row["weakest"] = weakest_lines(row["candidate"], report.codebertscore)
    ranking = time.perf_counter() - start
    print(f"{len(CASES)} planted slips x {len(VARIANTS)} variants; scoring {scored:.1f} s, "
          f"differences {1000 * ranking / len(rows):.1f} ms per candidate")
    print(f"{'variant':<10} {'ranking':<14} {'top-1':>7} {'top-3':>7}")
    for variant in VARIANTS:
        subset = [r for r in rows if r["variant"] == variant]
        for key, label in (("ranked", "differences"), ("weakest", "weakest token")):
            hits = [sum(bool(set(r[key][:k]) & set(r["bugs"])) for r in subset) for k in (1, 3)]
            print(f"{variant:<10} {label:<14} {hits[0]:>3}/{len(subset):<3} {hits[1]:>3}/{len(subset):<3}")
    if args.verbose:
        for r in rows:
            print(f"  {r['case']:<20} {r['variant']:<9} bug {[b + 1 for b in r['bugs']]}  "
                  f"differences rank {rank_of(r, 'ranked')}  weakest rank {rank_of(r, 'weakest')}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
