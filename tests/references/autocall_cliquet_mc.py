"""An independent reference for autocallables and cliquets: random trades priced by price-batch
and by a plain NumPy Monte Carlo written from docs/io-contract's payoff text alone, exact GBM
steps between the dates the payoff reads (so only discrete or at-maturity knock-ins: a
continuous one needs the engine's bridge). The two estimates are independent, so they must agree
within 4 of their combined standard errors (plus 1e-4 for float paths).
Usage: /usr/bin/python3 autocall_cliquet_mc.py PRICE_BATCH SEED N [PATHS] [-v]
       (EXTRA="--rng sobol" adds price-batch arguments)"""
import csv, json, math, os, subprocess, sys, tempfile
import numpy as np

pb, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
paths = int(sys.argv[4]) if len(sys.argv) > 4 and not sys.argv[4].startswith("-") else 400000
verbose = "-v" in sys.argv
rnd = np.random.default_rng(seed)
r = float(rnd.choice([0.0, 0.02, 0.05]))
assets, corr, trades, models = {}, {}, [], {}


def pick(xs):
    return xs[int(rnd.integers(len(xs)))]


def new_asset(name):
    a = {"spot": pick([50.0, 100.0]), "dividend_yield": pick([0.0, 0.02]), "vol": pick([0.15, 0.25, 0.4])}
    assets[name] = a
    return a


def fmt(xs):
    return ";".join(repr(float(x)) for x in xs)


for i in range(n):
    tid = f"t{i}"
    T = pick([1.0, 2.0, 3.0])
    if rnd.random() < 0.6:
        k = int(pick([1, 2, 3]))
        names = [f"A{i}_{j}" for j in range(k)]
        for nm in names:
            new_asset(nm)
        rho = pick([0.0, 0.5, 0.8])
        for a in range(k):
            for b in range(a + 1, k):
                corr[f"{names[a]},{names[b]}"] = rho
        nobs = int(pick([2, 4, 8])) * int(T)
        obs = [T * (j + 1) / nobs for j in range(nobs)]
        row = {"id": tid, "product": "autocallable", "type": "call", "underlying": ";".join(names), "maturity": repr(T),
               "observation_times": fmt(obs), "coupon": repr(pick([0.0, 0.02, 0.05])),
               "notional": repr(pick([1.0, 100.0]))}
        ac = pick([1.0, 1.05, None])
        if ac is None:
            row["autocall_barrier"] = fmt(np.linspace(1.05, 0.85, nobs))
        else:
            row["autocall_barrier"] = repr(ac)
        if rnd.random() < 0.6:
            row["coupon_barrier"] = repr(pick([0.7, 0.8]))
        row["memory"] = pick(["yes", "no"])
        if rnd.random() < 0.7:
            row["ki_barrier"] = repr(pick([0.5, 0.6, 0.7]))
            row["ki_monitoring"] = pick(["discrete", "maturity"])
            if row["ki_monitoring"] == "discrete":
                row["fixings"] = str(int(pick([12, 52])) * int(T))
        if rnd.random() < 0.4:
            row["strike"] = repr(pick([0.8, 1.0]))
        if rnd.random() < 0.3:
            row["initial_levels"] = fmt([assets[nm]["spot"] * pick([0.9, 1.1]) for nm in names])
    else:
        nm = f"A{i}_0"
        new_asset(nm)
        nres = int(pick([4, 12])) * int(T)
        row = {"id": tid, "product": "cliquet", "type": "call", "underlying": nm, "maturity": repr(T),
               "fixings": str(nres), "notional": repr(pick([1.0, 100.0]))}
        for key, vals in [("local_floor", [-0.05, 0.0]), ("local_cap", [0.03, 0.08]),
                          ("global_floor", [0.0, 0.02]), ("global_cap", [0.3, 0.6])]:
            if rnd.random() < 0.6:
                row[key] = repr(pick(vals))
    trades.append(row)


def simulate(row, gen):
    names = row["underlying"].split(";")
    T = float(row["maturity"])
    k = len(names)
    spots = np.array([assets[nm]["spot"] for nm in names])
    qs = np.array([assets[nm]["dividend_yield"] for nm in names])
    vols = np.array([assets[nm]["vol"] for nm in names])
    c = np.eye(k)
    for a in range(k):
        for b in range(k):
            if a != b:
                c[a, b] = corr.get(f"{names[a]},{names[b]}", corr.get(f"{names[b]},{names[a]}", 0.0))
    chol = np.linalg.cholesky(c)
    if row["product"] == "autocallable":
        obs = [float(x) for x in row["observation_times"].split(";")]
        fix = []
        if row.get("ki_monitoring") == "discrete":
            nf = int(row["fixings"])
            fix = [T * (j + 1) / nf for j in range(nf)]
    else:
        nres = int(row["fixings"])
        obs, fix = [T * (j + 1) / nres for j in range(nres)], []
    times = sorted(set([round(t, 12) for t in obs + fix]))
    m = paths
    logs = np.tile(np.log(spots), (m, 1))
    at = {}
    prev = 0.0
    for t in times:
        dt = t - prev
        z = gen.standard_normal((m, k)) @ chol.T
        logs = logs + (r - qs - 0.5 * vols ** 2) * dt + vols * math.sqrt(dt) * z
        at[t] = np.exp(logs)
        prev = t
    pay = np.zeros(m)
    if row["product"] == "cliquet":
        lf = float(row.get("local_floor", "-inf"))
        lc = float(row.get("local_cap", "inf"))
        s_prev = np.full(m, spots[0])
        tot = np.zeros(m)
        for t in times:
            s = at[t][:, 0]
            tot += np.clip(s / s_prev - 1.0, lf, lc)
            s_prev = s
        gf = float(row.get("global_floor", "-inf"))
        gc = float(row.get("global_cap", "inf"))
        return np.clip(tot, gf, gc) * math.exp(-r * T)
    levels = np.array([float(x) for x in row["initial_levels"].split(";")]) if "initial_levels" in row else spots
    ac = [float(x) for x in row["autocall_barrier"].split(";")]
    if len(ac) == 1:
        ac = ac * len(obs)
    cpn = float(row["coupon"])
    cb = [float(x) for x in row["coupon_barrier"].split(";")] if "coupon_barrier" in row else ac
    if len(cb) == 1:
        cb = cb * len(obs)
    memory = row["memory"] == "yes"
    alive = np.ones(m, dtype=bool)
    missed = np.zeros(m)
    for j, t in enumerate(obs):
        perf = (at[round(t, 12)] / levels).min(axis=1)
        got = alive & (perf >= cb[j])
        amount = cpn * (1.0 + (missed if memory else 0.0))
        pay += np.where(got, amount, 0.0) * math.exp(-r * t)
        missed = np.where(got, 0.0, missed + np.where(alive, 1.0, 0.0))
        if j + 1 < len(obs):
            call = alive & (perf >= ac[j])
            pay += np.where(call, 1.0, 0.0) * math.exp(-r * t)
            alive &= ~call
    perf_T = (at[round(T, 12)] / levels).min(axis=1)
    ki = np.zeros(m, dtype=bool)
    if "ki_barrier" in row:
        kb = float(row["ki_barrier"])
        if row["ki_monitoring"] == "maturity":
            ki = perf_T <= kb
        else:
            for t in fix:
                ki |= (at[round(t, 12)] / levels).min(axis=1) <= kb
    K = float(row.get("strike", "1.0"))
    final = 1.0 - np.where(ki, np.maximum(K - perf_T, 0.0) / K, 0.0)
    pay += np.where(alive, final, 0.0) * math.exp(-r * T)
    return pay


cols = ["id"] + sorted({key for t in trades for key in t} - {"id"})
with tempfile.TemporaryDirectory() as d:
    json.dump({"rate": r, "assets": assets, "correlation": corr}, open(os.path.join(d, "m.json"), "w"))
    with open(os.path.join(d, "b.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(trades)
    run = subprocess.run([pb, os.path.join(d, "b.csv"), "--market", os.path.join(d, "m.json"), "--backend", "cpu",
                          "--paths", str(paths), "--seed", str(seed), "--out", os.path.join(d, "o.csv")]
                         + os.environ.get("EXTRA", "").split(),
                         capture_output=True, text=True)
    if run.returncode not in (0, 2):
        sys.exit(run.stderr)
    rows = list(csv.DictReader(open(os.path.join(d, "o.csv"))))
gen = np.random.default_rng(seed + 1000)
bad = 0
for row, t in zip(rows, trades):
    if row["status"] != "ok":
        print("ERROR", row["id"], row["message"])
        bad += 1
        continue
    x = simulate(t, gen) * float(t.get("notional", "1"))
    ref, se = x.mean(), x.std() / math.sqrt(len(x))
    price, pse = float(row["price"]), float(row["std_error"])
    comb = math.hypot(se, pse)
    z = (price - ref) / comb if comb > 0 else 0.0
    flag = abs(price - ref) > 4 * comb + 1e-4 * abs(ref)
    bad += flag
    if flag or verbose:
        print(("BAD " if flag else "ok  ") + f"{row['id']:<5} mc {price:.5f} +- {pse:.5f} numpy {ref:.5f} +- {se:.5f} "
              f"z {z:+.1f}", json.dumps(t))
print(f"seed {seed} r {r}: {len(rows)} trades, {bad} outside 4 combined se")
