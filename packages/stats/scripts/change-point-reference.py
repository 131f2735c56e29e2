#!/usr/bin/env python3
"""Reference values for the t-test of src/change-points.ts (segmentTTest), computed as Apache
Otava's TTestSignificanceTester.compare does (otava/analysis.py): numpy mean and std (ddof 0,
0 for one point) passed to scipy.stats.ttest_ind_from_stats (Student's pooled test, two-sided).
    python3 scripts/change-point-reference.py > src/change-point-reference-values.json
    npx prettier --write src/change-point-reference-values.json
It also holds Welch's test from moments (src/shift.ts, welchShift). src/change-points.test.ts and
src/shift.test.ts compare every figure with the TypeScript implementation.
"""
import json

import numpy as np
import scipy
from scipy import stats
from scipy.stats import ttest_ind_from_stats

CASES = [
    ("otava flat", [1.00, 1.02, 1.05, 0.95, 0.98], [1.00, 1.02, 1.05, 0.95, 0.98]),
    ("otava step", [1.00, 1.02, 1.05, 0.95, 0.98], [0.80, 0.82, 0.85, 0.79, 0.77]),
    ("one point before", [26705.0], [26475, 26641, 26806, 26835]),
    ("one outlier after", [1.02, 0.95, 0.99, 1.00, 1.12, 1.00], [0.5]),
    ("a 15 % step", [100, 103, 98, 101, 99, 102, 97, 100], [115, 117, 113, 116, 114, 118]),
    ("unequal spread", [0.0, 0.0, 0.0], [1.00, 1.12, 0.90, 0.50, 0.51, 0.48, 0.48, 0.55]),
]


def case(name, left, right):
    std_l = float(np.std(left)) if len(left) >= 2 else 0.0
    std_r = float(np.std(right)) if len(right) >= 2 else 0.0
    _, p = ttest_ind_from_stats(np.mean(left), std_l, len(left), np.mean(right), std_r, len(right))
    return {
        "name": name,
        "left": left,
        "right": right,
        "meanBefore": float(np.mean(left)),
        "meanAfter": float(np.mean(right)),
        "sdBefore": std_l,
        "sdAfter": std_r,
        "p": float(p),
    }


# welchShift (src/shift.ts): Welch's test from moments, scipy.stats.ttest_ind_from_stats(equal_var=False),
# and its 95 % interval with scipy.stats.t.ppf at the Welch–Satterthwaite df.
SHIFTS = [
    ("15 % step in the log ratio", [0.01, -0.02, 0.005, 0.0, 0.012, -0.008], [0.15, 0.13, 0.16, 0.14, 0.125, 0.155, 0.14]),
    ("no shift", [0.02, -0.01, 0.0, 0.015], [0.01, 0.0, -0.012, 0.02, 0.005]),
    ("unequal spread", [0.3, -0.2, 0.1, 0.05, -0.1], [0.05, 0.051, 0.049]),
]


def shift(name, before, after):
    b, a = np.array(before), np.array(after)
    t, p = stats.ttest_ind_from_stats(a.mean(), a.std(ddof=1), len(a), b.mean(), b.std(ddof=1), len(b), equal_var=False)
    vb, va = b.var(ddof=1) / len(b), a.var(ddof=1) / len(a)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    q = stats.t.ppf(0.975, df)
    est = a.mean() - b.mean()
    se = np.sqrt(va + vb)
    return {
        "name": name,
        "before": {"n": len(b), "mean": float(b.mean()), "sd": float(b.std(ddof=1))},
        "after": {"n": len(a), "mean": float(a.mean()), "sd": float(a.std(ddof=1))},
        "t": float(t), "df": float(df), "p": float(p), "low": float(est - q * se), "high": float(est + q * se),
    }


print(
    json.dumps(
        {"scipy": scipy.__version__, "cases": [case(*c) for c in CASES], "shifts": [shift(*s) for s in SHIFTS]},
        indent=2,
    )
)
