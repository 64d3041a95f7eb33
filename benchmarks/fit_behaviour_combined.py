"""Fit the combined RefScore number where behaviour ran (``combined/combined_behaviour.json``) and
measure it held out, beside every single input, in one run.

The fit stacks three inputs: the similarity fit's logit (``refscore``'s own, from CodeBERTScore,
chrF++, length and parse errors), the behaviour agreement, and whether the candidate agreed on
every input. Two fits are reported:

* ``humaneval``: HumanEval-Python (prompt + completion run beside prompt + canonical solution),
  ten folds by problem: each problem's completions are scored by a fit that never saw it;
* ``classes``: the hand-written classes of tests/data (behaviourclass, handclass), never HumanEval:
  its HumanEval numbers are wholly held out.

Usage (the behaviour rows come from ``bench_behaviour_humaneval.py --out``)::

    .venv/bin/python benchmarks/fit_behaviour_combined.py --behaviour he-behaviour.json \
        [--similarity he-similarity.json] [--save humaneval|classes]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "humaneval" / "python.jsonl.gz"
INPUTS = ("similarity", "behaviour", "behaviour_all")


def paper_tau(rows: Sequence[dict], key: str) -> float:
    """The CodeBERTScore paper's Kendall tau against pass/fail: within each problem, every pair of
    completions whose outcomes differ; (concordant - discordant) / (all such pairs)."""
    by_task: dict[Any, list[dict]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row)
    concordant = discordant = ties = 0
    for items in by_task.values():
        passed = [r[key] for r in items if r["passed"]]
        failed = [r[key] for r in items if not r["passed"]]
        for p in passed:
            for f in failed:
                if p > f:
                    concordant += 1
                elif p < f:
                    discordant += 1
                else:
                    ties += 1
    total = concordant + discordant + ties
    return (concordant - discordant) / total if total else float("nan")


def matrix(rows: Sequence[dict]) -> np.ndarray:
    return np.array([[r["similarity"], r["behaviour"], r["behaviour_all"]] for r in rows], dtype=float)


def fit_logistic(x: np.ndarray, y: np.ndarray, lam: float = 1.0) -> dict[str, Any]:
    """L2-penalised logistic regression on standardised inputs (Newton's method)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * lam
    penalty[0, 0] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-z @ w))
        gradient = z.T @ (p - y) + penalty @ w
        hessian = z.T @ (z * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return {"mean": mean.tolist(), "scale": scale.tolist(), "coef": w[1:].tolist(), "intercept": float(w[0])}


def predict(fit: dict[str, Any], x: np.ndarray) -> np.ndarray:
    z = (x - np.array(fit["mean"])) / np.array(fit["scale"])
    return 1 / (1 + np.exp(-(fit["intercept"] + z @ np.array(fit["coef"]))))


def humaneval_rows(behaviour_path: Path, similarity_path: Path | None) -> list[dict]:
    """One row per completion: passed, the similarity logit and behaviour (the rows behaviour did
    not run on keep the similarity number alone)."""
    behaviour = {(_task(r["task_id"]), int(r["completion_idx"])): r for r in _read_json_rows(behaviour_path)}
    if similarity_path is not None and similarity_path.exists():
        similarity = {(_task(r["task_id"]), int(r["completion_idx"])): r["logit"] for r in _read_json_rows(similarity_path)}
    else:
        similarity = similarity_logits()
    rows = []
    for key, row in behaviour.items():
        logit = similarity.get(key)
        if logit is None:
            continue
        agreement = row.get("agreement")
        rows.append({"task_id": key[0], "passed": int(row["passed"]), "similarity": float(logit),
                     "behaviour": float(agreement) if agreement is not None else None,
                     "behaviour_all": float(agreement == 1.0) if agreement is not None else None})
    return rows


def _task(task_id: Any) -> str:
    """``HumanEval/12`` and ``12`` are one problem."""
    return str(task_id).rsplit("/", 1)[-1]


def _read_json_rows(path: Path) -> list[dict]:
    text = path.read_text()
    data = json.loads(text) if text.lstrip().startswith(("[", "{")) and "\n{" not in text.strip() else None
    if data is None:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(data, dict):
        return next(data[key] for key in ("rows", "completions") if isinstance(data.get(key), list))
    return data


def similarity_logits() -> dict[tuple[str, int], float]:
    """The similarity fit's logit of every HumanEval-Python completion (the paper's texts: bodies)."""
    import refscore

    rows = [json.loads(line) for line in gzip.open(DATA, "rt")]
    scored = refscore.score([r["hyp"] for r in rows], [r["ref"] for r in rows], "python",
                            metrics=("codebleu", "codebertscore"))
    return {(_task(r["task_id"]), int(r["completion_idx"])): s.report.refscore.logit
            for r, s in zip(rows, scored) if s.report is not None and s.report.refscore is not None}


def class_rows() -> list[dict]:
    """The hand-written classes: similarity, behaviour and the hidden tests' verdict per submission."""
    import refscore
    from refscore.behaviour import run_behaviour
    from tests.test_behaviour_class import CLASS, PROBLEM_NAMES, hidden_pass_rate
    from tests.handclass import PROBLEMS, STUDENTS

    pairs: list[tuple[str, str, str, int]] = []
    for name in PROBLEM_NAMES:
        reference = (CLASS / name / "reference.py").read_text()
        for path in sorted((CLASS / name / "submissions").iterdir()):
            candidate = path.read_text()
            pairs.append((name, reference, candidate, int(hidden_pass_rate(CLASS / name, reference, candidate) == 1.0)))
    handclass = next(p for p in PROBLEMS if p.language == "python")
    for student in STUDENTS:
        pairs.append((handclass.name, handclass.reference.read_text(), handclass.text(student),
                      int(student in ("alice", "frank", "grace"))))
    scored = refscore.score([p[2] for p in pairs], [p[1] for p in pairs], "python",
                            metrics=("codebleu", "codebertscore"))
    rows = []
    for (task, reference, candidate, passed), score in zip(pairs, scored):
        result = run_behaviour(reference, candidate, "python")
        logit = score.report.refscore.logit if score.report and score.report.refscore else -5.0
        rows.append({"task_id": task, "passed": passed, "similarity": logit, "behaviour": result.agreement or 0.0,
                     "behaviour_all": float(result.agrees_everywhere)})
    return rows


def held_out(rows: Sequence[dict], folds: int = 10, lam: float = 1.0) -> np.ndarray:
    """Each row scored by a fit on the folds without its problem (rows behaviour did not run on:
    the similarity number)."""
    tasks = sorted({r["task_id"] for r in rows})
    fold_of = {task: index % folds for index, task in enumerate(tasks)}
    scores = np.array([1 / (1 + math.exp(-r["similarity"])) for r in rows])
    ran = np.array([r["behaviour"] is not None for r in rows], dtype=bool)
    for fold in range(folds):
        test = np.array([fold_of[r["task_id"]] == fold for r in rows], dtype=bool) & ran
        train = ~np.array([fold_of[r["task_id"]] == fold for r in rows], dtype=bool) & ran
        if test.any():
            subset = [r for r, t in zip(rows, train) if t]
            fit = fit_logistic(matrix(subset), np.array([r["passed"] for r in subset], dtype=float), lam)
            scores[test] = predict(fit, matrix([r for r, t in zip(rows, test) if t]))
    return scores


def precision_recall(rows: Iterable[dict]) -> tuple[float, float]:
    ran = [r for r in rows if r["behaviour"] is not None]
    predicted = [r for r in ran if r["behaviour_all"] == 1.0]
    passed = [r for r in ran if r["passed"]]
    hits = sum(r["passed"] for r in predicted)
    return hits / max(len(predicted), 1), hits / max(len(passed), 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--behaviour", type=Path, required=True, help="bench_behaviour_humaneval.py --out")
    parser.add_argument("--similarity", type=Path, help="a saved table of similarity logits (made if absent)")
    parser.add_argument("--save", choices=("humaneval", "classes"), help="write this fit as combined_behaviour.json")
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--report", type=Path, metavar="JSON",
                        help="also write the figures as a report (docs/reports/behaviour-humaneval.json)")
    args = parser.parse_args(argv)
    rows = humaneval_rows(args.behaviour, args.similarity)
    ran = [r for r in rows if r["behaviour"] is not None]
    for row in rows:
        row["similarity_only"] = row["similarity"]
        row["behaviour_or_0"] = row["behaviour"] if row["behaviour"] is not None else -1.0
    scores = held_out(rows, lam=args.lam)
    for row, score in zip(rows, scores):
        row["refit_cv"] = float(score)
    classes = class_rows()
    class_fit = fit_logistic(matrix(classes), np.array([r["passed"] for r in classes], dtype=float), args.lam)
    for row in rows:
        row["refit_classes"] = (float(predict(class_fit, matrix([row]))[0]) if row["behaviour"] is not None
                                else 1 / (1 + math.exp(-row["similarity"])))
    precision, recall = precision_recall(rows)
    report = {
        "completions": len(rows), "behaviour_ran": len(ran), "problems": len({r["task_id"] for r in rows}),
        "tau": {"behaviour": paper_tau(rows, "behaviour_or_0"), "similarity (RefScore today)": paper_tau(rows, "similarity_only"),
                "refit, 10 folds by problem (held out)": paper_tau(rows, "refit_cv"),
                "refit on the hand-written classes only (HumanEval wholly held out)": paper_tau(rows, "refit_classes")},
        "agrees_everywhere": {"precision": precision, "recall": recall},
        "class_rows": len(classes),
    }
    print(json.dumps(report, indent=1))
    if args.report:
        from report_file import write_report

        print("wrote", write_report(args.report, report))
    if args.save:
        from refscore.combined.model import load_model, save_model
        from refscore.scoring.headline_behaviour import PATH

        train_rows = ran if args.save == "humaneval" else classes
        fit = class_fit if args.save == "classes" else fit_logistic(
            matrix(train_rows), np.array([r["passed"] for r in train_rows], dtype=float), args.lam)
        model = {"version": 3, "features": list(INPUTS), **fit, "method": "logistic regression, L2 "
                 f"{args.lam:g}, stacked on the similarity fit's logit", "bert": load_model()["bert"],
                 "headline": True, "fitted": {"train": "humaneval-python" if args.save == "humaneval" else "classes",
                                              "rows": len(train_rows), "held_out": report}}
        print("wrote", save_model(model, PATH))
    return 0


if __name__ == "__main__":
    sys.exit(main())
