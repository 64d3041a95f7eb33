"""The figures the README's headline claim rests on, from a `refscore eval --out` result, as a report
(docs/reports/correlation.json) that ``claims.py`` reads.

Usage::

    refscore eval --layers 6 --contexts none --jobs 2 --metrics chrf,codebleu,canon,cbs,errors \\
        --save-scores S.npz --out eval.json
    refscore eval --from-scores S.npz --save-combined-without-humaneval without-he.json --out eval.json
    .venv/bin/python benchmarks/eval_claims.py --result eval.json --report docs/reports/correlation.json

The report's command is the eval command the result records (the one that scored, or the analysis
from its saved scores), so a reader reruns what made the figures, not this script.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def claim_values(result: dict[str, Any]) -> dict[str, Any]:
    """The headline rule's figures: the combined number held out, the best single metric on all
    problems, the gain's bootstrap interval, CoNaLa, and the fit that never saw HumanEval."""
    from refscore.eval.report import _label
    from refscore.eval.report_cv import held_summary, verdict

    decision = result.get("verdict") or verdict(result)
    if decision is None:
        raise SystemExit("eval_claims: the result has no cross-validation (run eval with CodeBERTScore and chrF)")
    cv = result["cross_validation"]
    best_name, best_tau = decision["best_tau"]
    gain = cv["differences"]["vs_single"]["humaneval_tau"]
    without = result.get("without_humaneval_model")
    return {
        "meets_rule": bool(decision["ship"]),
        "checks": decision["checks"],
        "combined_held_out": decision["combined"],
        "best_single": {"metric": best_name, "tau": best_tau, "tau_label": _label(best_name).split(" (")[0],
                        "spearman_metric": decision["best_spearman"][0], "spearman": decision["best_spearman"][1]},
        "gain_over_best_tau": gain,
        "gain_over_bert": cv["differences"]["vs_bert"],
        "bert_conala_tau": decision["bert"]["conala_tau"],
        "bert_conala_label": "CodeBERTScore (its cross-validated variant)",
        "without_humaneval_tau": (held_summary(without["fitted"]["left_out_agreement"])["humaneval_tau"]
                                  if without else None),
        "per_language_held_out": {lang: values["tau"] for lang, values in cv["combined_held_out"].items()},
        "counts": result.get("counts"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--result", type=Path, required=True, help="refscore eval --out JSON")
    parser.add_argument("--report", type=Path, required=True, help="the report to write")
    args = parser.parse_args(argv)
    result = json.loads(args.result.read_text(encoding="utf-8"))
    from report_file import write_report

    values = claim_values(result)
    print(json.dumps(values, indent=1))
    print("wrote", write_report(args.report, values, command=result.get("command")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
