"""Weighted L2 logistic regression (the combined RefScore number's calibration)."""

from __future__ import annotations

import numpy as np


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1.0,
                 iterations: int = 50) -> tuple[float, np.ndarray]:
    """Weighted L2 logistic regression with soft labels by Newton's method: (intercept, coef).

    ``l2`` is relative to the total weight (the intercept is not penalised)."""
    n, d = x.shape
    a = np.column_stack([np.ones(n), x])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2 * w.sum() / max(n, 1))
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(a @ beta)))
        grad = a.T @ (w * (p - y)) + penalty * beta
        hess = (a * (w * p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-12 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return float(beta[0]), beta[1:]
