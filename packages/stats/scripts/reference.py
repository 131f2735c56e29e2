#!/usr/bin/env python3
"""Reference values for @tunelab/stats, computed independently with SciPy/NumPy.

Run with SciPy >= 1.11 (scipy.stats.false_discovery_control), then format with Prettier:
    python3 scripts/reference.py | npx prettier --stdin-filepath src/reference-values.json > src/reference-values.json
src/reference.test.ts compares every figure here with the TypeScript implementation.
The relative-difference interval (see src/relative-difference.ts) is, when every value of both
samples is > 0, the delta-method interval of ln(mean_c / mean_b) with Welch–Satterthwaite df
of the two log-scale variance terms, exponentiated; here the log-scale variance of each mean is
found by numerically differentiating np.log at the mean (not by the closed form the TypeScript
uses) and the bounds come from scipy.stats.t.interval. Otherwise it is Fieller's, with
Welch–Satterthwaite df evaluated at the estimated ratio, solved with numpy.roots. Both are
recorded for every case (fieller95 for comparison); relativeDifference95/90 hold the one the
library must give.
The 95% CI of a mean is scipy.stats.t.interval, cut at 0 when the sample has no negative value.
The interaction test (src/interaction.ts) of a pair under two conditions A and B: with every value
> 0, the difference of the two log ratios of means, each cell's log-mean variance by the same
numerical delta method, Welch-Satterthwaite df of the four terms, p from scipy.stats.t.sf and the
interval from scipy.stats.t.interval, exponentiated; otherwise the difference of the differences
of means with the terms s^2/n. Adjusted p-values (src/multiplicity.ts): Holm by its definition
(max over the smaller p of (m - k + 1) p_(k), capped at 1), Benjamini-Hochberg by
scipy.stats.false_discovery_control(method='bh').
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats

# Published VACUUM timings in seconds: INDEX_CLEANUP (1-x) vs drop/re-create indexes (2-x),
# per server; see reference/published-results.json at the repository root.
CASES = [
    ("server-1 1-1 vs 1-2", [226, 222, 233, 224, 227], [143, 146, 120, 117, 181]),
    ("server-1 2-1 vs 2-2", [232, 272, 328, 259, 389], [331, 220, 277, 398, 235]),
    ("server-2 1-1 vs 1-2", [867, 788, 796, 810, 919], [731, 601, 634, 641, 740]),
    ("server-3 1-1 vs 1-2", [602, 619, 581, 676, 569], [491, 576, 522, 500, 589]),
    ("n = 2", [10.0, 12.0], [15.0, 19.0]),
    ("noisy 2-core VM", [0.9, 4.1, 0.2, 6.3, 1.1], [0.1, 0.3, 0.05, 0.2, 0.15]),
    ("baseline with values <= 0 (Fieller)", [5.0, -0.5, 6.2, 4.8, 5.5], [5.1, 6.3, 4.8, 5.9]),
    ("Fieller unbounded", [3.0, -0.5, 4.2, 2.8, 0.0], [5.1, 6.3, 4.8, 5.9]),
    ("ties", [1, 2, 2, 3, 3, 3, 4], [3, 3, 4, 4, 5, 5, 5, 6]),
    ("identical samples", [5.1, 4.9, 5.0, 5.2], [5.1, 4.9, 5.0, 5.2]),
    ("candidate much noisier", [100, 101, 99, 100.5, 99.5, 100.2], [60, 140, 95, 180, 70, 110]),
    ("baseline with an outlier", [10, 10.2, 9.9, 10.1, 10.0, 25], [9, 9.1, 8.9, 9.2, 9.0, 9.05]),
    ("larger samples",
     [12.1, 14.3, 11.8, 13.5, 12.9, 15.2, 12.4, 13.1, 14.8, 12.7, 13.9, 12.2],
     [11.2, 12.5, 10.9, 11.8, 13.0, 11.4, 12.1, 10.7, 11.9, 12.8, 11.1, 12.3, 11.6, 10.5, 12.0]),
    # The runner's CPU probe (ms), four repetitions before a run and four after: a quiet machine
    # with one slow repetition, and a busy one.
    ("CPU probe, one slow repetition vs busy",
     [17.369, 17.109, 17.118, 17.088, 19.121, 16.518, 17.131, 22.108],
     [26.0, 29.0, 28.0, 32.0, 25.0, 24.0, 24.0, 26.0]),
]
MAD_SCALE = 1.4826
OUTLIER_Z = 3.5


def summary(values):
    x = np.asarray(values, dtype=float)
    n = len(x)
    mean = float(np.mean(x))
    sd = float(np.std(x, ddof=1))
    se = float(stats.sem(x))
    ci95 = mean_interval(x, 0.95, mean, se)
    ci99 = mean_interval(x, 0.99, mean, se)
    mad = float(stats.median_abs_deviation(x)) * MAD_SCALE
    outliers = [] if mad == 0 else [int(i) for i in np.nonzero(np.abs(x - np.median(x)) / mad > OUTLIER_Z)[0]]
    return {
        "n": n,
        "mean": mean,
        "median": float(np.median(x)),
        "sd": sd,
        "se": se,
        "cv": sd / abs(mean),
        "ci95": ci95,
        "ci99": ci99,
        "min": float(np.min(x)),
        "max": float(np.max(x)),
        "outliers": outliers,
        "geometricMean": float(stats.gmean(x)) if np.min(x) > 0 else None,
        "robustCv": (
            float(stats.median_abs_deviation(x, scale="normal")) / abs(float(np.median(x)))
            if np.median(x) != 0
            else None
        ),
    }


def mean_interval(x, level, mean, se):
    low, high = stats.t.interval(level, len(x) - 1, loc=mean, scale=se)
    truncated = bool(low < 0 and np.min(x) >= 0)
    return {"low": 0.0 if truncated else float(low), "high": float(high), "truncatedAtZero": truncated}


def log_mean_variance(x):
    """Delta method: Var(ln mean) ~ (d ln m / dm)^2 Var(mean), the derivative taken numerically."""
    m = x.mean()
    h = m * 1e-6
    derivative = (np.log(m + h) - np.log(m - h)) / (2 * h)
    return derivative**2 * x.var(ddof=1) / len(x)


def log_ratio(baseline, candidate, level):
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    ub, uc = log_mean_variance(b), log_mean_variance(c)
    df = (ub + uc) ** 2 / (ub**2 / (len(b) - 1) + uc**2 / (len(c) - 1))
    low, high = stats.t.interval(level, df, loc=np.log(c.mean() / b.mean()), scale=np.sqrt(ub + uc))
    # The test the interval inverts: the log ratio over its standard error, two-sided, same df.
    t = np.log(c.mean() / b.mean()) / np.sqrt(ub + uc)
    return {
        "method": "log-ratio",
        "absolute": float(c.mean() - b.mean()),
        "relative": float(c.mean() / b.mean() - 1),
        "ci": {"low": float(np.exp(low) - 1), "high": float(np.exp(high) - 1)},
        "df": float(df),
        "p": float(2 * stats.t.sf(abs(t), df)),
    }


def relative_difference(baseline, candidate, level):
    if min(baseline) > 0 and min(candidate) > 0:
        return log_ratio(baseline, candidate, level)
    return fieller(baseline, candidate, level)


def fieller(baseline, candidate, level):
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    mb, mc = b.mean(), c.mean()
    vb, vc = b.var(ddof=1) / len(b), c.var(ddof=1) / len(c)
    rho = mc / mb
    df = (vc + rho**2 * vb) ** 2 / (vc**2 / (len(c) - 1) + (rho**2 * vb) ** 2 / (len(b) - 1))
    t = stats.t.ppf(1 - (1 - level) / 2, df)
    # (mc - rho*mb)^2 <= t^2 (vc + rho^2 vb)  <=>  A rho^2 + B rho + C <= 0
    coefficients = [mb**2 - t**2 * vb, -2 * mc * mb, mc**2 - t**2 * vc]
    roots = np.roots(coefficients)
    # The set is one bounded interval only when A > 0 and the roots are real; else it is reported
    # as unbounded, written null here (JSON has no infinities).
    bounded = coefficients[0] > 0 and np.all(np.isreal(roots))
    roots = np.sort(roots.real)
    # The interval's own condition at rho = 1: (mc - mb)^2 <= t^2 (vc + vb), as a p-value at the same df.
    t_one = (mc - mb) / np.sqrt(vc + vb)
    return {
        "method": "fieller",
        "absolute": float(mc - mb),
        "relative": float(rho - 1),
        "ci": {"low": float(roots[0] - 1), "high": float(roots[1] - 1)} if bounded else {"low": None, "high": None},
        "df": float(df),
        "p": float(2 * stats.t.sf(abs(t_one), df)),
    }


INTERACTIONS = [
    # The article's 1-1 vs 1-2 on two of its servers: is the pair's ratio the same on both?
    ("server-1 vs server-2", CASES[0][1:], CASES[2][1:]),
    ("server-2 vs server-3", CASES[2][1:], CASES[3][1:]),
    ("server-1 vs server-3", CASES[0][1:], CASES[3][1:]),
    ("noisy 2-core VM vs steady", CASES[5][1:], ([10.0, 10.2, 9.9, 10.1], [5.1, 4.9, 5.0, 5.2])),
    ("n = 3 per cell", ([13.7, 6.7, 8.0], [0.75, 0.33, 0.03]), ([12.1, 11.4, 12.9], [1.1, 0.9, 1.3])),
    ("values <= 0 (difference of differences)", CASES[6][1:], ([4.0, 0.0, 5.2, 4.1, 4.4], [5.0, 6.1, 4.9, 6.2])),
]

PVALUE_FAMILIES = [
    ("VACUUM pairs and points", [0.002, 0.93, 0.027, 0.0021, 0.049, 0.31, 0.00004, 0.6, 0.012]),
    ("ties and ones", [0.01, 0.01, 0.04, 1.0, 0.04, 0.5]),
    ("one test", [0.03]),
    ("small family", [0.04, 0.02, 0.9]),
]


def cell_terms(values, positive):
    x = np.asarray(values, dtype=float)
    if positive:
        return float(np.log(x.mean())), float(log_mean_variance(x)), len(x)
    return float(x.mean()), float(x.var(ddof=1) / len(x)), len(x)


def interaction(name, a, b, level=0.95):
    cells = [a[0], a[1], b[0], b[1]]
    positive = all(min(c) > 0 for c in cells)
    (ab, ub_a, nb_a), (ac, uc_a, nc_a), (bb, ub_b, nb_b), (bc, uc_b, nc_b) = [cell_terms(c, positive) for c in cells]
    d = (ac - ab) - (bc - bb)
    us = [ub_a, uc_a, ub_b, uc_b]
    ns = [nb_a, nc_a, nb_b, nc_b]
    se = np.sqrt(sum(us))
    df = sum(us) ** 2 / sum(u**2 / (n - 1) for u, n in zip(us, ns))
    t = d / se
    low, high = stats.t.interval(level, df, loc=d, scale=se)
    back = np.exp if positive else (lambda v: v)
    return {
        "name": name,
        "a": {"baseline": list(a[0]), "candidate": list(a[1])},
        "b": {"baseline": list(b[0]), "candidate": list(b[1])},
        "method": "log-ratio" if positive else "difference",
        "estimate": float(back(d)),
        "ci": {"low": float(back(low)), "high": float(back(high))},
        "t": float(t),
        "df": float(df),
        "p": float(2 * stats.t.sf(abs(t), df)),
    }


def holm(ps):
    m = len(ps)
    order = np.argsort(ps, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * ps[i]))
        adjusted[i] = running
    return [float(x) for x in adjusted]


def has_ties(a, b):
    combined = list(a) + list(b)
    return len(set(combined)) != len(combined)


def case(name, baseline, candidate):
    welch = stats.ttest_ind(baseline, candidate, equal_var=False)
    va, vb = np.var(baseline, ddof=1) / len(baseline), np.var(candidate, ddof=1) / len(candidate)
    welch_df = (va + vb) ** 2 / (va**2 / (len(baseline) - 1) + vb**2 / (len(candidate) - 1))
    mwu = stats.mannwhitneyu(baseline, candidate, alternative="two-sided", method="asymptotic", use_continuity=True)
    result = {
        "name": name,
        "baseline": baseline,
        "candidate": candidate,
        "summaryBaseline": summary(baseline),
        "summaryCandidate": summary(candidate),
        "welch": {"t": float(welch.statistic), "df": float(welch_df), "p": float(welch.pvalue)},
        "mannWhitneyAsymptotic": {"u": float(mwu.statistic), "p": float(mwu.pvalue)},
        "relativeDifference95": relative_difference(baseline, candidate, 0.95),
        "relativeDifference90": relative_difference(baseline, candidate, 0.90),
        "fieller95": fieller(baseline, candidate, 0.95),
    }
    if not has_ties(baseline, candidate):
        exact = stats.mannwhitneyu(baseline, candidate, alternative="two-sided", method="exact")
        result["mannWhitneyExact"] = {"u": float(exact.statistic), "p": float(exact.pvalue)}
    return result


def main():
    servers = [c for c in CASES if c[0].endswith("1-1 vs 1-2")]
    pairs = [{"baseline": float(np.mean(b)), "candidate": float(np.mean(c))} for _, b, c in servers]
    output = {
        "generatedBy": f"scripts/reference.py with SciPy {scipy.__version__}, NumPy {np.__version__}",
        "cases": [case(*c) for c in CASES],
        "interactions": [interaction(*c) for c in INTERACTIONS],
        "adjustedPValues": [
            {
                "name": name,
                "p": ps,
                "holm": holm(ps),
                "benjaminiHochberg": [float(x) for x in stats.false_discovery_control(ps, method="bh")],
            }
            for name, ps in PVALUE_FAMILIES
        ],
        "geometricMeanOfRatios": {
            "pairs": pairs,
            "value": float(stats.gmean([p["candidate"] / p["baseline"] for p in pairs])),
            "shift": 0.01,
            "valueShifted": float(stats.gmean([(p["candidate"] + 0.01) / (p["baseline"] + 0.01) for p in pairs])),
        },
    }
    json.dump(output, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
