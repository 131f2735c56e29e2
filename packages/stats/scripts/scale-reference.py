#!/usr/bin/python3
"""Reference values for src/scale.ts (answers at a scale), computed independently.

Run with Debian's packages (apt-get install -y python3-statsmodels python3-scipy python3-numpy):
    /usr/bin/python3 scripts/scale-reference.py > src/scale-reference-values.json
    npx prettier --write src/scale-reference-values.json
src/scale.test.ts compares every figure here with the TypeScript implementation.
- Fits, confidence and prediction intervals: statsmodels OLS on (ln x, ln y), get_prediction
  ().summary_frame() (mean_ci_*, obs_ci_*), exponentiated.
- A pair at x: the two fits' predicted ln y and their standard errors from statsmodels, the
  difference with Welch–Satterthwaite df, scipy.stats.t for the interval and the two-sided p.
- The crossing's interval: every ln x where the pair's interval holds 1, found by a fine grid scan
  of the t statistic (not by the quadratic the TypeScript solves), refined with scipy.optimize.brentq.
- Held-out errors: refit with statsmodels without each measured scale.
"""
import json

import numpy as np
import statsmodels.api as sm
from scipy import optimize, stats

REPS = 3


def points(scales, fn, noise):
    rng = np.random.default_rng(len(scales) * 1000 + int(fn(scales[0])))
    out = []
    for x in scales:
        for _ in range(REPS):
            out.append((float(x), float(fn(x) * np.exp(rng.normal(0, noise)))))
    return out


SCALES = [100_000, 200_000, 400_000, 800_000, 1_600_000]
CASES = [
    # drop/re-create (baseline) grows faster than INDEX_CLEANUP (candidate): they cross inside.
    ("crossing inside the range",
     points(SCALES, lambda x: 2.0 * (x / 1e5) ** 1.15, 0.05),
     points(SCALES, lambda x: 3.2 * (x / 1e5) ** 0.95, 0.05),
     [50_000, 300_000, 1_600_000, 40_000_000]),
    # Parallel-ish lines, noisy: the crossing cannot be bounded.
    ("nearly parallel and noisy",
     points(SCALES[:4], lambda x: 5.0 * (x / 1e5) ** 1.0, 0.25),
     points(SCALES[:4], lambda x: 4.0 * (x / 1e5) ** 1.02, 0.25),
     [150_000, 800_000, 3_000_000]),
    # Three scales, tables swept: few points.
    ("three scales",
     points([1000, 4000, 10000], lambda x: 0.01 * x ** 0.9, 0.1),
     points([1000, 4000, 10000], lambda x: 0.004 * x ** 0.7, 0.1),
     [2000, 10000, 20000]),
]


def fit(pts):
    lx = np.log([p[0] for p in pts])
    ly = np.log([p[1] for p in pts])
    model = sm.OLS(ly, sm.add_constant(lx)).fit()
    return model, lx


def predict(model, x):
    frame = model.get_prediction(np.array([[1.0, np.log(x)]])).summary_frame(alpha=0.05)
    row = frame.iloc[0]
    se_mean = float(row["mean_se"])
    return {
        "x": x,
        "estimate": float(np.exp(row["mean"])),
        "ci": {"low": float(np.exp(row["mean_ci_lower"])), "high": float(np.exp(row["mean_ci_upper"]))},
        "pi": {"low": float(np.exp(row["obs_ci_lower"])), "high": float(np.exp(row["obs_ci_upper"]))},
    }, float(row["mean"]), se_mean


def pair_terms(mb, mc, lx):
    def terms(model):
        pred = model.get_prediction(np.array([[1.0, lx]]))
        mean = float(pred.predicted_mean[0])
        v_mean = float(pred.se_mean[0]) ** 2
        return mean, v_mean, v_mean + model.scale, model.df_resid

    yb, vb, sb, dfb = terms(mb)
    yc, vc, scand, dfc = terms(mc)
    return yc - yb, (vc, dfc, vb, dfb), (scand, dfc, sb, dfb)


def satterthwaite(a, dfa, b, dfb):
    return (a + b) ** 2 / (a ** 2 / dfa + b ** 2 / dfb)


def pair(mb, mc, x):
    d, m, s = pair_terms(mb, mc, np.log(x))
    out = {"x": x, "ratio": float(np.exp(d))}
    for name, (a, dfa, b, dfb) in (("ci", m), ("pi", s)):
        df = satterthwaite(a, dfa, b, dfb)
        lo, hi = stats.t.interval(0.95, df, loc=d, scale=np.sqrt(a + b))
        out[name] = {"low": float(np.exp(lo)), "high": float(np.exp(hi))}
        if name == "ci":
            out["df"] = float(df)
            out["p"] = float(2 * stats.t.sf(abs(d) / np.sqrt(a + b), df))
    return out


def crossing(mb, mc):
    da = mc.params[0] - mb.params[0]
    db = mc.params[1] - mb.params[1]
    l0 = -da / db
    _, (a, dfa, b, dfb), _ = pair_terms(mb, mc, l0)
    tcrit = stats.t.ppf(0.975, satterthwaite(a, dfa, b, dfb))

    def excess(l):  # > 0 where the interval at ln x = l excludes 1
        d, (va, _, vb, _), _ = pair_terms(mb, mc, l)
        return abs(d) / np.sqrt(va + vb) - tcrit

    grid = np.linspace(l0 - 40, l0 + 40, 40001)
    inside = np.array([excess(l) <= 0 for l in grid])
    interval = None
    if not inside[0] and not inside[-1]:
        idx = np.where(inside)[0]
        lo = optimize.brentq(excess, grid[idx[0] - 1], grid[idx[0]])
        hi = optimize.brentq(excess, grid[idx[-1]], grid[idx[-1] + 1])
        interval = {"low": float(np.exp(lo)), "high": float(np.exp(hi))}
    return {"x": float(np.exp(l0)), "interval": interval, "lowerAbove": "baseline" if db > 0 else "candidate"}


def held_out(pts):
    out = []
    for x in sorted({p[0] for p in pts}):
        rest = [p for p in pts if p[0] != x]
        if len(rest) < 3 or len({p[0] for p in rest}) < 2:
            continue
        model, _ = fit(rest)
        here = [p[1] for p in pts if p[0] == x]
        observed = float(np.exp(np.mean(np.log(here))))
        predicted = float(np.exp(model.params[0] + model.params[1] * np.log(x)))
        out.append({"x": x, "observed": observed, "predicted": predicted, "errorPct": (predicted / observed - 1) * 100})
    return out


cases = []
for name, base, cand, at in CASES:
    mb, _ = fit(base)
    mc, _ = fit(cand)
    cases.append({
        "name": name,
        "baseline": [{"x": x, "y": y} for x, y in base],
        "candidate": [{"x": x, "y": y} for x, y in cand],
        "fits": {
            side: {"slope": float(m.params[1]), "intercept": float(m.params[0]), "residualSd": float(np.sqrt(m.scale)), "df": float(m.df_resid)}
            for side, m in (("baseline", mb), ("candidate", mc))
        },
        "predictions": [predict(mb, x)[0] for x in at],
        "pairs": [pair(mb, mc, x) for x in at],
        "crossing": crossing(mb, mc),
        "heldOut": held_out(base),
    })

print(json.dumps({"generator": "scripts/scale-reference.py", "cases": cases}, indent=2))
