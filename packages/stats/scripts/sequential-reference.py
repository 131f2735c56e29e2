#!/usr/bin/env python3
"""Reference values for src/sequential.ts (paired blocks, the always-valid confidence sequence),
computed independently with SciPy/NumPy:
    python3 scripts/sequential-reference.py > src/sequential-reference-values.json
    npx prettier --write src/sequential-reference-values.json
- The paired t-test: scipy.stats.ttest_rel on the logs of the two samples.
- Each Bayes factor: the noncentral-t density of t (df n - 1, noncentrality delta * sqrt(n))
  integrated over the prior delta ~ N(0, g) with scipy.integrate.quad, divided by the central-t
  density (the closed form the TypeScript uses is not evaluated here).
- The multiplier: scipy.optimize.brentq on the mixture of those integrals minus 1/alpha.
src/sequential.test.ts compares every figure here with the TypeScript implementation.
"""
import json

import numpy as np
import scipy
from scipy import integrate, optimize, stats

SCALES = [1, 10, 100]


def bayes_factor(t, n, g):
    nu = n - 1

    def integrand(delta):
        return stats.nct.pdf(t, nu, delta * np.sqrt(n)) * stats.norm.pdf(delta, 0, np.sqrt(g))

    sd = np.sqrt(g)
    # Split the range at the prior's bulk and at the delta that t points to, for quad's sake.
    centre = t / np.sqrt(n)
    points = sorted({-6 * sd, 6 * sd, centre})
    value = 0.0
    edges = [-np.inf] + points + [np.inf]
    for a, b in zip(edges[:-1], edges[1:]):
        if a < b:
            value += integrate.quad(integrand, a, b, limit=400, epsabs=0, epsrel=1e-11)[0]
    return value / stats.t.pdf(t, nu)


def e_value(t, n):
    return float(np.mean([bayes_factor(t, n, g) for g in SCALES]))


def multiplier(n, alpha):
    target = 1 / alpha
    hi = 1.0
    while e_value(hi, n) < target:
        hi *= 2
        if hi > 1e4:
            return None
    return optimize.brentq(lambda t: e_value(t, n) - target, 0, hi, xtol=1e-12, rtol=1e-12)


def case(name, baseline, candidate, alphas):
    b = np.array(baseline, dtype=float)
    c = np.array(candidate, dtype=float)
    d = np.log(c) - np.log(b)
    n = len(d)
    tt = stats.ttest_rel(np.log(c), np.log(b))
    t = float(tt.statistic)
    out = {
        "name": name,
        "baseline": baseline,
        "candidate": candidate,
        "mean": float(np.mean(d)),
        "sd": float(np.std(d, ddof=1)),
        "pairedT": {"t": t, "df": int(tt.df), "p": float(tt.pvalue)},
        "bayesFactors": {str(g): bayes_factor(t, n, g) for g in SCALES},
        "eValue": e_value(t, n),
        "sequences": [],
    }
    for alpha in alphas:
        m = multiplier(n, alpha)
        se = np.std(d, ddof=1) / np.sqrt(n)
        out["sequences"].append(
            {
                "alpha": alpha,
                "multiplier": m,
                "low": None if m is None else float(np.mean(d) - m * se),
                "high": None if m is None else float(np.mean(d) + m * se),
            }
        )
    return out


rng = np.random.default_rng(40)


def drawn(n, ratio, cv):
    base = 10 * np.exp(rng.normal(0, cv, n))
    load = np.exp(rng.normal(0, 0.3, n))  # what a block shares: cancels in the ratio
    cand = base * ratio * np.exp(rng.normal(0, cv, n))
    return [round(float(x), 6) for x in base * load], [round(float(x), 6) for x in cand * load]


cases = [
    case("vacuum-full-rewrite, three blocks", [0.34, 0.31, 0.36], [1.62, 1.49, 1.77], [0.05, 0.0125]),
    case("4.8x in five blocks", [0.34, 0.31, 0.36, 0.33, 0.35], [1.62, 1.49, 1.77, 1.7, 1.55], [0.05, 0.0125]),
    case("20 % faster, 12 blocks", *drawn(12, 0.8, 0.08), [0.05, 0.0125]),
    case("A/A, 20 blocks", *drawn(20, 1.0, 0.1), [0.05, 0.025]),
    case("3 % slower, 40 blocks", *drawn(40, 1.03, 0.05), [0.05, 0.01]),
]

print(
    json.dumps(
        {
            "generatedBy": f"scripts/sequential-reference.py with SciPy {scipy.__version__}, NumPy {np.__version__}",
            "scales": SCALES,
            "cases": cases,
        },
        indent=2,
    )
)
