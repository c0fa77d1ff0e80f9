"""An independent reference for the products whose payoffs read the spot at given dates:
random trades priced by price-batch and by a plain NumPy Monte Carlo written from the I/O
contract's payoff text alone, with exact GBM steps between the dates the payoff reads (so
discrete monitoring only: a continuous one needs the engine's bridge). Autocallables (one to
three correlated assets), cliquets, Asians (arithmetic and geometric, fixed and floating, dates
that may include today), discrete barriers with rebates, discrete lookbacks (seasoned or not),
discrete touches, and baskets, best-of, worst-of (weighted) and spreads. The two estimates are
independent, so they must agree within 4 of their combined standard errors (plus 1e-4 of the
price for float paths).
Usage: /usr/bin/python3 contract_mc.py PRICE_BATCH SEED N [PATHS] [-v] [--jumps] [--curves]
       (--jumps: Merton jumps on some assets; --curves: a discount curve, and term structures of
       dividend yields and vols on some assets; --heston: Heston on some single-asset trades,
       against full-truncation Euler steps of 1/400 year, with an allowance of 0.5%)
       (EXTRA="--rng sobol" adds price-batch arguments)"""
import csv, json, math, os, subprocess, sys, tempfile
import numpy as np

pb, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
paths = int(sys.argv[4]) if len(sys.argv) > 4 and not sys.argv[4].startswith("-") else 400000
verbose = "-v" in sys.argv
jumps = "--jumps" in sys.argv  # Merton jumps on some assets, simulated exactly at the dates
curves = "--curves" in sys.argv  # term structures: the discount curve, dividend yields, vols
heston = "--heston" in sys.argv  # Heston on some single-asset trades (a fine Euler reference)
rnd = np.random.default_rng(seed)
r = float(rnd.choice([0.0, 0.02, 0.05]))
rate = {"times": [0.5, 1.0, 2.0, 5.0], "zero_rates": [0.01, 0.02, 0.035, 0.04]} if "--curves" in sys.argv else r
assets, corr, trades, models = {}, {}, [], {}


def pick(xs):
    return xs[int(rnd.integers(len(xs)))]


def new_asset(name):
    a = {"spot": pick([50.0, 100.0]), "dividend_yield": pick([0.0, 0.02]), "vol": pick([0.15, 0.25, 0.4])}
    if curves and rnd.random() < 0.6:
        a["dividend_yield"] = {"times": [0.5, 1.5, 3.0], "rates": [pick([0.0, 0.01, 0.03]) for _ in range(3)]}
    if curves and rnd.random() < 0.6:
        a["vol"] = {"times": [0.5, 1.5, 3.0], "vols": sorted(pick([0.15, 0.25, 0.4]) for _ in range(3))}
    if jumps and rnd.random() < 0.4:
        a["jumps"] = {"intensity": pick([0.2, 1.0]), "mean": pick([-0.15, 0.05]), "vol": pick([0.1, 0.2])}
    assets[name] = a
    return a


def fmt(xs):
    return ";".join(repr(float(x)) for x in xs)


def autocallable_row(tid, T):
    k = int(pick([1, 2, 3]))
    names = [f"{tid}_{j}" for j in range(k)]
    for nm in names:
        (single_asset if k == 1 else new_asset)(nm)
    correlate(names)
    nobs = int(pick([2, 4, 8])) * int(T)
    obs = [T * (j + 1) / nobs for j in range(nobs)]
    row = {"product": "autocallable", "underlying": ";".join(names), "observation_times": fmt(obs),
           "coupon": repr(pick([0.0, 0.02, 0.05]))}
    ac = pick([1.0, 1.05, None])
    row["autocall_barrier"] = fmt(np.linspace(1.05, 0.85, nobs)) if ac is None else repr(ac)
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
    return row


def single_asset(name):
    a = new_asset(name)
    if heston and rnd.random() < 0.6:
        a["model"] = "heston"
        a["vol"] = 0.2  # read and not used
        a["heston"] = {"v0": pick([0.02, 0.06]), "kappa": pick([1.0, 3.0]), "theta": pick([0.03, 0.06]),
                       "xi": pick([0.3, 0.6]), "rho": pick([-0.7, -0.3, 0.3])}
    return a


def cliquet_row(tid, T):
    single_asset(f"{tid}_0")
    row = {"product": "cliquet", "underlying": f"{tid}_0", "fixings": str(int(pick([4, 12])) * int(T))}
    for key, vals in [("local_floor", [-0.05, 0.0]), ("local_cap", [0.03, 0.08]), ("global_floor", [0.0, 0.02]),
                      ("global_cap", [0.3, 0.6])]:
        if rnd.random() < 0.6:
            row[key] = repr(pick(vals))
    return row


def dated(row, T):
    """Monitoring dates: `fixings` equally spaced, or `fixing_times` (perhaps with today)."""
    if rnd.random() < 0.5:
        row["fixings"] = str(int(pick([4, 12, 50])))
    else:
        nf = int(pick([3, 6]))
        row["fixing_times"] = fmt(([0.0] if rnd.random() < 0.5 else []) + [T * (j + 1) / nf for j in range(nf)])
    return row


def path_row(tid, T):
    a = single_asset(f"{tid}_0")
    S = a["spot"]
    product = pick(["asian", "barrier", "lookback", "touch"])
    row = {"product": product, "underlying": f"{tid}_0", "type": pick(["call", "put"])}
    if product == "asian":
        row["averaging"] = pick(["arithmetic", "geometric"])
        row["strike_kind"] = pick(["fixed", "floating"])
        if row["strike_kind"] == "fixed":
            row["strike"] = repr(S * pick([0.9, 1.0, 1.1]))
    elif product == "barrier":
        row["barrier_kind"] = pick(["up-out", "up-in", "down-out", "down-in"])
        row["barrier"] = repr(S * (pick([1.1, 1.25]) if row["barrier_kind"].startswith("up") else pick([0.8, 0.9])))
        row["strike"] = repr(S * pick([0.9, 1.0, 1.1]))
        row["rebate"] = repr(pick([0.0, 3.0]))
        row["monitoring"] = "discrete"
    elif product == "lookback":
        row["strike_kind"] = pick(["fixed", "floating"])
        if row["strike_kind"] == "fixed":
            row["strike"] = repr(S * pick([0.9, 1.0, 1.1]))
        row["monitoring"] = "discrete"
        if rnd.random() < 0.4:
            lowest = (row["strike_kind"] == "floating") == (row["type"] == "call")
            row["running_extreme"] = repr(S * (0.9 if lowest else 1.1))
    else:
        up = rnd.random() < 0.5
        row.update({"type": pick(["one-touch", "no-touch"]), "barrier_kind": "up" if up else "down",
                    "barrier": repr(S * (1.15 if up else 0.85)), "payout": "10", "monitoring": "discrete"})
        row["pay_at"] = pick(["hit", "expiry"]) if row["type"] == "one-touch" else "expiry"
    return dated(row, T)


def multi_row(tid, T):
    product = pick(["basket", "best_of", "worst_of", "spread"])
    k = 2 if product == "spread" else int(pick([2, 3]))
    names = [f"{tid}_{j}" for j in range(k)]
    for nm in names:
        new_asset(nm)
    correlate(names)
    row = {"product": product, "underlying": ";".join(names), "type": pick(["call", "put"])}
    if product != "spread" and rnd.random() < 0.5:
        row["weights"] = fmt([pick([0.5, 1.0, 2.0]) for _ in names])
    level = sum(assets[nm]["spot"] for nm in names) / k
    row["strike"] = repr(pick([0.0, 5.0]) if product == "spread" else level * pick([0.9, 1.0, 1.1]))
    return row


def correlate(names):
    rho = pick([0.0, 0.5, 0.8])
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            corr[f"{names[a]},{names[b]}"] = rho


for i in range(n):
    T = pick([1.0, 2.0, 3.0])
    make = pick([autocallable_row, cliquet_row, path_row, multi_row])
    row = make(f"t{i}", T)
    row.update({"id": f"t{i}", "maturity": repr(T), "notional": repr(pick([1.0, 100.0]))})
    row.setdefault("type", "call")
    trades.append(row)


def zero(curve, t):
    """A zero rate (or yield) at t: flat, or linear in time between pillars and flat outside."""
    if not isinstance(curve, dict):
        return curve
    times, rates = curve["times"], curve.get("rates", curve.get("zero_rates"))
    return np.interp(t, times, rates)


def total_variance(vol, t):
    """Black total variance at t: linear between pillars' sigma^2 t, flat vol outside."""
    if not isinstance(vol, dict):
        return vol * vol * t
    times, vols = vol["times"], vol["vols"]
    if t <= times[0]:
        return vols[0] ** 2 * t
    if t >= times[-1]:
        return vols[-1] ** 2 * t
    return float(np.interp(t, times, [v * v * x for v, x in zip(vols, times)]))


def disc(t):
    return np.exp(-zero(rate, t) * t)


def floats(text):
    return [float(x) for x in text.split(";")]


def monitoring_times(row, T):
    if "fixing_times" in row:
        return floats(row["fixing_times"])
    nf = int(row["fixings"])
    return [T * (j + 1) / nf for j in range(nf)]


def dates_read(row, T):
    """The dates a payoff reads (0 = today's spot), the last one maturity."""
    p = row["product"]
    if p == "autocallable":
        ki = monitoring_times(row, T) if row.get("ki_monitoring") == "discrete" else []
        return floats(row["observation_times"]) + ki + [T]
    if p in ("cliquet", "asian", "barrier", "lookback", "touch"):
        return monitoring_times(row, T) + [T]
    return [T]


def heston_steps(h, logs, v, a, b, log_forward, gen):
    """From a to b by full-truncation Euler steps of at most 1/400 of a year."""
    n = max(1, int(math.ceil((b - a) * 400)))
    dt = (b - a) / n
    for j in range(n):
        t0, t1 = a + j * dt, a + (j + 1) * dt
        vp = np.maximum(v, 0.0)
        z1 = gen.standard_normal(v.shape)
        z2 = h["rho"] * z1 + math.sqrt(1.0 - h["rho"] ** 2) * gen.standard_normal(v.shape)
        logs = logs + log_forward(t1) - log_forward(t0) - 0.5 * vp * dt + np.sqrt(vp * dt) * z1
        v = v + h["kappa"] * (h["theta"] - vp) * dt + h["xi"] * np.sqrt(vp * dt) * z2
    return logs, v


def simulate(row, gen):
    """Per path: the spots at every date the payoff reads, {t: (paths x assets)}, t = 0 included."""
    names = row["underlying"].split(";")
    T = float(row["maturity"])
    k = len(names)
    spots = np.array([assets[nm]["spot"] for nm in names])
    def log_forward(t):  # ln(F(t) / S0), per asset
        return np.array([(zero(rate, t) - zero(assets[nm]["dividend_yield"], t)) * t for nm in names])

    def variance(t):
        return np.array([total_variance(assets[nm]["vol"], t) for nm in names])

    c = np.eye(k)
    for a in range(k):
        for b in range(k):
            if a != b:
                c[a, b] = corr.get(f"{names[a]},{names[b]}", corr.get(f"{names[b]},{names[a]}", 0.0))
    chol = np.linalg.cholesky(c)
    laws = [assets[nm].get("jumps", {"intensity": 0.0, "mean": 0.0, "vol": 0.0}) for nm in names]
    lam = np.array([j["intensity"] for j in laws])
    jm, jv = np.array([j["mean"] for j in laws]), np.array([j["vol"] for j in laws])
    comp = lam * (np.exp(jm + 0.5 * jv ** 2) - 1.0)  # the compensator: the forward is unchanged
    logs = np.tile(np.log(spots), (paths, 1))
    at = {0.0: np.exp(logs)}
    prev = 0.0
    h = assets[names[0]].get("heston") if k == 1 else None
    v = np.full((paths, 1), h["v0"]) if h else None
    for t in sorted(set(round(x, 12) for x in dates_read(row, T)) - {0.0}):
        if h:
            logs, v = heston_steps(h, logs, v, prev, t, log_forward, gen)
        else:
            z = gen.standard_normal((paths, k)) @ chol.T
            dw = variance(t) - variance(prev)
            logs = logs + log_forward(t) - log_forward(prev) - 0.5 * dw + np.sqrt(dw) * z
        logs = logs - comp * (t - prev)
        if lam.any():
            count = gen.poisson(lam * (t - prev), (paths, k))
            logs = logs + count * jm + np.sqrt(count) * jv * gen.standard_normal((paths, k))
        at[t] = np.exp(logs)
        prev = t
    return lambda t: at[round(t, 12)]


def cliquet_pay(row, T, at):
    times = monitoring_times(row, T)
    lf, lc = float(row.get("local_floor", "-inf")), float(row.get("local_cap", "inf"))
    total, before = 0.0, at(0.0)[:, 0]
    for t in times:
        total = total + np.clip(at(t)[:, 0] / before - 1.0, lf, lc)
        before = at(t)[:, 0]
    return np.clip(total, float(row.get("global_floor", "-inf")), float(row.get("global_cap", "inf"))) * disc(T)


def autocallable_pay(row, T, at):
    spots = at(0.0)[0]
    levels = np.array(floats(row["initial_levels"])) if "initial_levels" in row else spots
    obs = floats(row["observation_times"])
    ac = floats(row["autocall_barrier"])
    ac = ac * len(obs) if len(ac) == 1 else ac
    cb = floats(row["coupon_barrier"]) if "coupon_barrier" in row else ac
    cb = cb * len(obs) if len(cb) == 1 else cb
    cpn, memory = float(row["coupon"]), row["memory"] == "yes"
    pay = np.zeros(paths)
    alive = np.ones(paths, dtype=bool)
    missed = np.zeros(paths)
    for j, t in enumerate(obs):
        perf = (at(t) / levels).min(axis=1)
        got = alive & (perf >= cb[j])
        pay += np.where(got, cpn * (1.0 + (missed if memory else 0.0)), 0.0) * disc(t)
        missed = np.where(got, 0.0, missed + np.where(alive, 1.0, 0.0))
        if j + 1 < len(obs):
            call = alive & (perf >= ac[j])
            pay += np.where(call, 1.0, 0.0) * disc(t)
            alive &= ~call
    perf_T = (at(T) / levels).min(axis=1)
    ki = np.zeros(paths, dtype=bool)
    if "ki_barrier" in row:
        kb = float(row["ki_barrier"])
        ki_times = monitoring_times(row, T) if row["ki_monitoring"] == "discrete" else [T]
        for t in ki_times:
            ki |= (at(t) / levels).min(axis=1) <= kb
    K = float(row.get("strike", "1.0"))
    final = 1.0 - np.where(ki, np.maximum(K - perf_T, 0.0) / K, 0.0)
    return pay + np.where(alive, final, 0.0) * disc(T)


def vanilla(x, strike, side):
    return np.maximum(x - strike, 0.0) if side == "call" else np.maximum(strike - x, 0.0)


def path_pay(row, T, at):
    times = monitoring_times(row, T)
    s = np.stack([at(t)[:, 0] for t in times], axis=1)
    sT, side, p = at(T)[:, 0], row["type"], row["product"]
    to_T = disc(T)
    if p == "asian":
        avg = s.mean(axis=1) if row["averaging"] == "arithmetic" else np.exp(np.log(s).mean(axis=1))
        if row["strike_kind"] == "fixed":
            return vanilla(avg, float(row["strike"]), side) * to_T
        return vanilla(sT, avg, side) * to_T
    if p == "lookback":
        s0 = at(0.0)[:, 0]
        extreme = float(row["running_extreme"]) if "running_extreme" in row else s0
        lo = np.minimum(s.min(axis=1), extreme)
        hi = np.maximum(s.max(axis=1), extreme)
        if row["strike_kind"] == "floating":
            return (sT - lo if side == "call" else hi - sT) * to_T
        K = float(row["strike"])
        return (np.maximum(hi - K, 0.0) if side == "call" else np.maximum(K - lo, 0.0)) * to_T
    B = float(row["barrier"])
    kind = row["barrier_kind"]
    hits = s >= B if kind.startswith("up") else s <= B
    hit = hits.any(axis=1)
    first = np.argmax(hits, axis=1)
    hit_disc = disc(np.array(times))[first]
    if p == "touch":
        cash = float(row["payout"])
        if row["type"] == "no-touch":
            return np.where(hit, 0.0, cash) * to_T
        return np.where(hit, cash * (hit_disc if row["pay_at"] == "hit" else to_T), 0.0)
    payoff = vanilla(sT, float(row["strike"]), side) * to_T
    rebate = float(row["rebate"])
    if kind.endswith("out"):
        return np.where(hit, rebate * hit_disc, payoff)
    return np.where(hit, payoff, rebate * to_T)


def multi_pay(row, T, at):
    sT = at(T)
    w = np.array(floats(row["weights"])) if "weights" in row else None
    p, K, side = row["product"], float(row["strike"]), row["type"]
    if p == "basket":
        w = w if w is not None else np.full(sT.shape[1], 1.0 / sT.shape[1])
        x = sT @ w
    elif p == "spread":
        x = sT[:, 0] - sT[:, 1]
    else:
        scaled = sT * w if w is not None else sT
        x = scaled.max(axis=1) if p == "best_of" else scaled.min(axis=1)
    return vanilla(x, K, side) * disc(T)


PAYS = {"autocallable": autocallable_pay, "cliquet": cliquet_pay, "asian": path_pay, "barrier": path_pay,
        "lookback": path_pay, "touch": path_pay, "basket": multi_pay, "best_of": multi_pay, "worst_of": multi_pay,
        "spread": multi_pay}


cols = ["id"] + sorted({key for t in trades for key in t} - {"id"})
with tempfile.TemporaryDirectory() as d:
    curve = {"discount_curve": rate} if isinstance(rate, dict) else {"rate": r}
    json.dump(dict(curve, assets=assets, correlation=corr), open(os.path.join(d, "m.json"), "w"))
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
    T = float(t["maturity"])
    x = PAYS[t["product"]](t, T, simulate(t, gen)) * float(t.get("notional", "1"))
    ref, se = x.mean(), x.std() / math.sqrt(len(x))
    price, pse = float(row["price"]), float(row["std_error"])
    comb = math.hypot(se, pse)
    z = (price - ref) / comb if comb > 0 else 0.0
    # Allowance: 1e-4 of the price (float paths); Heston 0.5% (the two discretisations' bias).
    on_heston = any("heston" in assets[nm] for nm in t["underlying"].split(";"))
    flag = abs(price - ref) > 4 * comb + (5e-3 if on_heston else 1e-4) * abs(ref)
    bad += flag
    if flag or verbose:
        print(("BAD " if flag else "ok  ") + f"{row['id']:<5} mc {price:.5f} +- {pse:.5f} numpy {ref:.5f} +- {se:.5f} "
              f"z {z:+.1f}", json.dumps(t))
on = sum(any("heston" in assets[nm] or "jumps" in assets[nm] for nm in t["underlying"].split(";")) for t in trades)
print(f"seed {seed} r {r}: {len(rows)} trades ({on} on Heston or jump assets), {bad} outside 4 combined se")
