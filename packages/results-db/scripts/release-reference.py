#!/usr/bin/env python3
"""Runs on six PostgreSQL releases and what GET /v1/answers?from=&to= must answer for them,
computed independently with SciPy/NumPy:
    python3 scripts/release-reference.py > src/release-reference-values.json
    npx prettier --write src/release-reference-values.json
src/releases-reference.test.ts ingests these runs through the real ingest and compares the answer.

The runs: vacuum-index-cleanup's pair 1-1 -> 1-2, two runs of six paired blocks per release; each
block shares one load factor (a shared machine), each value has its own 3 % log-normal noise; the
ratio 1-2 / 1-1 is 0.8, times 1.15 from STEP_AT on.
- A release's point: the blocks of all its runs pooled; ratio = exp(mean of ln(1-2 / 1-1)), its
  interval the always-valid confidence sequence at alpha 0.05 (one declared pair): mean +- m * sd/sqrt(n),
  m where the mixture (g = 1, 10, 100) of Bayes factors reaches 1/alpha, each Bayes factor the
  noncentral-t density integrated over the prior with scipy.integrate.quad, m by scipy.optimize.brentq.
- A step between two releases: Welch's t-test of the two releases' block log ratios,
  scipy.stats.ttest_ind(after, before, equal_var=False), its 95 % interval from
  confidence_interval(); change = exp(difference) - 1.
- The adjacent steps adjusted together by scipy.stats.false_discovery_control(method='bh'); an
  upgrade's direct step is the only one of its family (one pair), so its adjusted p is its p.
  Each step's false-coverage-rate interval: confidence_interval(1 - max(R, 1) * 0.05 / m), R of
  the family's m steps with an adjusted p <= 0.05 (95 % for an upgrade's single step).
"""
import json

import numpy as np
import scipy
from scipy import integrate, optimize, stats

RELEASES = ["15.3", "15.4", "16.0", "16.1", "16.2", "17.0"]
STEP_AT = "16.1"
STEP = 0.15
RATIO = 0.8
RUNS, BLOCKS = 2, 6
SCALES = [1, 10, 100]
UPGRADES = [("15.4", "17.0"), ("15.3", "16.0"), ("16.1", "17.0")]

rng = np.random.default_rng(45)


def bayes_factor(t, n, g):
    nu = n - 1

    def integrand(delta):
        return stats.nct.pdf(t, nu, delta * np.sqrt(n)) * stats.norm.pdf(delta, 0, np.sqrt(g))

    edges = [-np.inf, *sorted({-6 * np.sqrt(g), 6 * np.sqrt(g), t / np.sqrt(n)}), np.inf]
    value = sum(integrate.quad(integrand, a, b, limit=400, epsrel=1e-11)[0] for a, b in zip(edges, edges[1:]) if a < b)
    return value / stats.t.pdf(t, nu)


def multiplier(n, alpha=0.05):
    def excess(t):
        return np.mean([bayes_factor(t, n, g) for g in SCALES]) - 1 / alpha

    return optimize.brentq(excess, 0.5, 200, xtol=1e-12)


def runs_of(release, ratio):
    runs = []
    for _ in range(RUNS):
        load = 1 + rng.uniform(0, 1.5, BLOCKS)
        base = 10 * load * np.exp(rng.normal(0, 0.03, BLOCKS))
        cand = 10 * ratio * load * np.exp(rng.normal(0, 0.03, BLOCKS))
        runs.append([[round(float(b), 6), round(float(c), 6)] for b, c in zip(base, cand)])
    return runs


def log_ratios(runs):
    return np.array([np.log(c) - np.log(b) for run in runs for b, c in run])


def step(before, after):
    res = stats.ttest_ind(after, before, equal_var=False)
    ci = res.confidence_interval(0.95)
    return {
        "change": float(np.expm1(np.mean(after) - np.mean(before))),
        "low": float(np.expm1(ci.low)),
        "high": float(np.expm1(ci.high)),
        "p": float(res.pvalue),
    }


def adjust(family, pairs):
    """BH over the family, and each step's false-coverage-rate interval (Benjamini & Yekutieli
    2005) at 1 - max(R, 1) * 0.05 / m, R the steps with an adjusted p <= 0.05."""
    adjusted = stats.false_discovery_control([s["p"] for s in family], method="bh")
    level = 1 - max(int(np.sum(adjusted <= 0.05)), 1) * 0.05 / len(family)
    for s, p, (before, after) in zip(family, adjusted, pairs):
        ci = stats.ttest_ind(after, before, equal_var=False).confidence_interval(level)
        s["adjustedP"] = float(p)
        s["level"] = float(level)
        s["adjustedLow"] = float(np.expm1(ci.low))
        s["adjustedHigh"] = float(np.expm1(ci.high))


data = {r: runs_of(r, RATIO * (1 + STEP if r >= STEP_AT else 1)) for r in RELEASES}
d = {r: log_ratios(runs) for r, runs in data.items()}
points = []
for r in RELEASES:
    n = len(d[r])
    m = multiplier(n)
    half = m * np.std(d[r], ddof=1) / np.sqrt(n)
    mean = np.mean(d[r])
    points.append(
        {
            "release": r,
            "blocks": n,
            "ratio": float(np.exp(mean)),
            "low": float(np.exp(mean - half)),
            "high": float(np.exp(mean + half)),
        }
    )
steps = [{"from": a, "to": b, **step(d[a], d[b])} for a, b in zip(RELEASES, RELEASES[1:])]
adjust(steps, [(d[a], d[b]) for a, b in zip(RELEASES, RELEASES[1:])])
upgrades = [{"from": a, "to": b, **step(d[a], d[b])} for a, b in UPGRADES]
for u, (a, b) in zip(upgrades, UPGRADES):
    adjust([u], [(d[a], d[b])])

print(
    json.dumps(
        {
            "generatedBy": f"scripts/release-reference.py with SciPy {scipy.__version__}, NumPy {np.__version__}",
            "stepAt": STEP_AT,
            "step": STEP,
            "runs": [{"release": r, "blocks": run} for r in RELEASES for run in data[r]],
            "points": points,
            "steps": steps,
            "upgrades": upgrades,
        },
        indent=2,
    )
)
