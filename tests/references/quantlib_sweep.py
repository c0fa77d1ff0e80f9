"""A random sweep of price-batch against QuantLib 1.29 (Debian's quantlib-python) and closed forms.

Draws N trades (one asset each, or two for best-of/worst-of and spreads) over the products that
have an analytic or finite-difference reference: Europeans (GBM, term structures, Heston, Merton,
Bates), digitals, continuous barriers with rebates, one-touch and no-touch, continuous lookbacks
(fresh and seasoned), discrete geometric Asians (fixed and floating), American and Bermudan puts
(finite differences), cliquets with a local floor (zero rates), Stulz's best/worst-of calls and
puts, Margrabe's exchange option, and local-vol Europeans at the surface's nodes (Black at the
node's vol). Prices are checked against 4 standard errors plus an allowance (0.2% of the price;
1% where the engine's discretisation or exercise policy sits between: path-dependent continuous
monitoring, early exercise, Heston, Bates, local vol); with --greeks, the Greeks are compared
with QuantLib's (analytic for vanillas and digitals, theta too; bump-and-reprice delta, gamma,
vega and rho for the rest), each within 4 of its standard errors (the JSON results') plus 2% and
0.02 (0.002 for gamma) for the bumps' bias; -v lists every Greek with its z. Not run by CI: the
Python bindings are not on the CI machine.
Usage: /usr/bin/python3 quantlib_sweep.py PRICE_BATCH SEED N [PATHS] [--greeks] [-v]
       (EXTRA="--rng sobol" adds price-batch arguments; KINDS=american,bermudan draws those kinds
       only; AMERICAN_CALLS=1 lets American trades be calls as well as puts)"""
import csv, json, math, random, subprocess, sys, tempfile, os
import QuantLib as ql

pb, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
paths = sys.argv[4] if len(sys.argv) > 4 and not sys.argv[4].startswith("--") else "400000"
greeks = "--greeks" in sys.argv
rnd = random.Random(seed)
today = ql.Date(1, 1, 2026)
ql.Settings.instance().evaluationDate = today
dc = ql.Actual365Fixed()
r = rnd.choice([0.0, 0.01, 0.03, 0.05])
assets, trades, refs, corr = {}, [], {}, {}


last_quotes = []


def proc(spot, q, vol):
    quotes = (ql.SimpleQuote(spot), ql.SimpleQuote(vol), ql.SimpleQuote(r))
    last_quotes[:] = quotes
    s = ql.QuoteHandle(quotes[0])
    rts = ql.YieldTermStructureHandle(ql.FlatForward(today, ql.QuoteHandle(quotes[2]), dc))
    qts = ql.YieldTermStructureHandle(ql.FlatForward(today, q, dc))
    vts = ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(), ql.QuoteHandle(quotes[1]), dc))
    return ql.BlackScholesMertonProcess(s, qts, rts, vts), s, rts, qts, vts


def new_asset(i, model="gbm"):
    spot = rnd.choice([50.0, 100.0, 120.0])
    q = rnd.choice([0.0, 0.02, 0.04])
    vol = rnd.choice([0.1, 0.2, 0.35, 0.5])
    name = f"A{i}"
    a = {"spot": spot, "dividend_yield": q, "vol": vol}
    if model != "gbm":
        a["model"] = model
    assets[name] = a
    return name, spot, q, vol


def greek_values(opt):
    out = {}
    for g in ["delta", "gamma", "vega", "theta", "rho"]:
        try:
            out[g] = getattr(opt, g)()
        except Exception:
            pass
    return out


def bumped(inst, quote, h):
    v = quote.value()
    quote.setValue(v + h)
    up = inst.NPV()
    quote.setValue(v - h)
    dn = inst.NPV()
    quote.setValue(v)
    return up, dn


def bump_greeks(inst):
    sq, vq, rq = last_quotes
    p0 = inst.NPV()
    hs = 0.01 * sq.value()
    up, dn = bumped(inst, sq, hs)
    out = {"delta": (up - dn) / (2 * hs), "gamma": (up - 2 * p0 + dn) / (hs * hs)}
    up, dn = bumped(inst, vq, 1e-3)
    out["vega"] = (up - dn) / 2e-3
    up, dn = bumped(inst, rq, 1e-4)
    out["rho"] = (up - dn) / 2e-4
    return out


class spot_extreme:
    """An instrument whose running extreme is the spot quote's value when priced: a fresh
    lookback under bump_greeks."""

    def __init__(self, make, spot):
        self.make = make
        self.spot = spot

    def NPV(self):
        return self.make(self.spot.value()).NPV()


def even_schedule(days, n):
    """n equally spaced dates a whole number of days apart, ending at the multiple of n days
    nearest `days`: that maturity in days, and the dates."""
    step = max(1, round(days / n))
    return step * n, [today + step * (k + 1) for k in range(n)]


def add(tid, row, ref, gr=None, inst=None):
    if inst is not None and greeks:
        gr = bump_greeks(inst)
    row["id"] = tid
    trades.append(row)
    refs[tid] = (ref, gr or {}, row["product"] + ":" + row.get("type", ""))


all_kinds = ["vanilla", "digital", "barrier", "lookback", "touch", "geo_asian", "american", "heston", "merton",
             "cliquet", "localvol", "termstruct", "bates", "bermudan", "geo_floating", "stulz", "margrabe"]
kinds = os.environ["KINDS"].split(",") if os.environ.get("KINDS") else all_kinds
for i in range(n):
    kind = rnd.choice(kinds)
    days = rnd.choice([73, 146, 365, 730])
    T = days / 365.0
    mat = today + days
    name, spot, q, vol = new_asset(i, "heston" if kind == "heston" else "gbm")
    p, s, rts, qts, vts = proc(spot, q, vol)
    tid = f"t{i}_{kind}"
    side = rnd.choice(["call", "put"])
    qt = ql.Option.Call if side == "call" else ql.Option.Put
    K = spot * rnd.choice([0.8, 0.95, 1.0, 1.1, 1.25])
    base = {"underlying": name, "maturity": repr(T), "type": side}
    if kind == "vanilla":
        opt = ql.VanillaOption(ql.PlainVanillaPayoff(qt, K), ql.EuropeanExercise(mat))
        opt.setPricingEngine(ql.AnalyticEuropeanEngine(p))
        add(tid, dict(base, product="vanilla", strike=repr(K)), opt.NPV(), greek_values(opt))
    elif kind == "digital":
        dk = rnd.choice(["cash", "asset"])
        pay = ql.CashOrNothingPayoff(qt, K, 7.0) if dk == "cash" else ql.AssetOrNothingPayoff(qt, K)
        opt = ql.VanillaOption(pay, ql.EuropeanExercise(mat))
        opt.setPricingEngine(ql.AnalyticEuropeanEngine(p))
        row = dict(base, product="digital", strike=repr(K), digital_kind=dk)
        if dk == "cash":
            row["payout"] = "7"
        # QuantLib's analytic Greeks: a 1% spot bump is biased by about 1% for a short, low-vol
        # digital near the money (delta 1.2358 bumped, 1.2461 exact, a cash call S = K = 50,
        # vol 0.1, 73 days), which is 20 of the engine's standard errors at 6.4e6 paths.
        add(tid, row, opt.NPV(), greek_values(opt))
    elif kind == "barrier":
        bk = rnd.choice(["up-out", "up-in", "down-out", "down-in"])
        B = spot * (rnd.choice([1.1, 1.3]) if bk.startswith("up") else rnd.choice([0.75, 0.9]))
        reb = rnd.choice([0.0, 0.0, 2.0])
        bt = {"up-out": ql.Barrier.UpOut, "up-in": ql.Barrier.UpIn, "down-out": ql.Barrier.DownOut,
              "down-in": ql.Barrier.DownIn}[bk]
        opt = ql.BarrierOption(bt, B, reb, ql.PlainVanillaPayoff(qt, K), ql.EuropeanExercise(mat))
        opt.setPricingEngine(ql.AnalyticBarrierEngine(p))
        add(tid, dict(base, product="barrier", strike=repr(K), barrier=repr(B), barrier_kind=bk, rebate=repr(reb)),
            opt.NPV(), inst=opt)
    elif kind == "lookback":
        sk = rnd.choice(["fixed", "floating"])
        seasoned = rnd.random() < 0.4

        def lookback(ext, sk=sk, qt=qt, K=K, p=p):
            if sk == "floating":
                o = ql.ContinuousFloatingLookbackOption(ext, ql.FloatingTypePayoff(qt), ql.EuropeanExercise(mat))
                o.setPricingEngine(ql.AnalyticContinuousFloatingLookbackEngine(p))
            else:
                o = ql.ContinuousFixedLookbackOption(ext, ql.PlainVanillaPayoff(qt, K), ql.EuropeanExercise(mat))
                o.setPricingEngine(ql.AnalyticContinuousFixedLookbackEngine(p))
            return o
        if sk == "floating":
            ext = spot * (0.9 if side == "call" else 1.1) if seasoned else spot
            row = dict(base, product="lookback", strike_kind="floating")
        else:
            ext = spot * (1.1 if side == "call" else 0.9) if seasoned else spot
            row = dict(base, product="lookback", strike_kind="fixed", strike=repr(K))
        opt = lookback(ext)
        if seasoned:
            row["running_extreme"] = repr(ext)
        # A fresh lookback's extreme is today's spot (the contract's default), so a spot bump
        # moves it: its reference is repriced with the extreme at the bumped spot.
        add(tid, row, opt.NPV(), inst=opt if seasoned else spot_extreme(lookback, s))
    elif kind == "touch":
        up = rnd.random() < 0.5
        B = spot * (1.15 if up else 0.85)
        tt = rnd.choice(["one-touch", "no-touch"])
        pay_at = rnd.choice(["hit", "expiry"]) if tt == "one-touch" else "expiry"
        payoff = ql.CashOrNothingPayoff(ql.Option.Call if up else ql.Option.Put, B, 10.0)
        opt = ql.VanillaOption(payoff, ql.AmericanExercise(today, mat, pay_at == "expiry"))
        opt.setPricingEngine(ql.AnalyticDigitalAmericanEngine(p))
        ref = opt.NPV() if tt == "one-touch" else 10.0 * math.exp(-r * T) - opt.NPV()
        add(tid, dict(underlying=name, maturity=repr(T), product="touch", type=tt, barrier=repr(B),
                      barrier_kind="up" if up else "down", payout="10", pay_at=pay_at), ref,
            inst=opt if tt == "one-touch" else None)
    elif kind == "geo_asian":
        nf = rnd.choice([4, 12, 52])
        times = [T * (k + 1) / nf for k in range(nf)]
        dates = [today + int(round(t * 365)) for t in times]
        if any(abs((d - today) / 365.0 - t) > 1e-12 for d, t in zip(dates, times)):
            continue
        opt = ql.DiscreteAveragingAsianOption(ql.Average.Geometric, 1.0, 0, dates, ql.PlainVanillaPayoff(qt, K),
                                              ql.EuropeanExercise(mat))
        opt.setPricingEngine(ql.AnalyticDiscreteGeometricAveragePriceAsianEngine(p))
        add(tid, dict(base, product="asian", averaging="geometric", strike=repr(K), fixings=str(nf)), opt.NPV(), inst=opt)
    elif kind == "american":
        if os.environ.get("AMERICAN_CALLS") != "1":
            side, qt = "put", ql.Option.Put
        opt = ql.VanillaOption(ql.PlainVanillaPayoff(qt, K), ql.AmericanExercise(today, mat))
        opt.setPricingEngine(ql.FdBlackScholesVanillaEngine(p, 800, 800))
        add(tid, dict(base, type=side, product="vanilla", exercise="american", strike=repr(K)), opt.NPV(),
            inst=opt)
    elif kind == "heston":
        v0, kappa, theta, xi, rho = rnd.choice([0.04, 0.09]), rnd.choice([1.0, 2.0]), rnd.choice([0.04, 0.06]), \
            rnd.choice([0.3, 0.6]), rnd.choice([-0.7, -0.3, 0.2])
        assets[name]["heston"] = {"v0": v0, "kappa": kappa, "theta": theta, "xi": xi, "rho": rho}
        hp = ql.HestonProcess(rts, qts, s, v0, kappa, theta, xi, rho)
        opt = ql.VanillaOption(ql.PlainVanillaPayoff(qt, K), ql.EuropeanExercise(mat))
        opt.setPricingEngine(ql.AnalyticHestonEngine(ql.HestonModel(hp)))
        add(tid, dict(base, product="vanilla", strike=repr(K)), opt.NPV())
    elif kind == "merton":
        lam, m, v = rnd.choice([0.3, 1.0]), rnd.choice([-0.1, 0.05]), rnd.choice([0.1, 0.25])
        assets[name]["jumps"] = {"intensity": lam, "mean": m, "vol": v}
        k = math.exp(m + 0.5 * v * v) - 1.0
        lp = lam * (1.0 + k)
        tot = 0.0
        for j in range(60):
            sj = math.sqrt(vol * vol + j * v * v / T)
            rj = r - lam * k + j * math.log(1.0 + k) / T
            fwd = spot * math.exp((rj - q) * T)
            bs = ql.blackFormula(qt, K, fwd, sj * math.sqrt(T), math.exp(-rj * T))
            tot += math.exp(-lp * T) * (lp * T) ** j / math.factorial(j) * bs
        add(tid, dict(base, product="vanilla", strike=repr(K)), tot)
    elif kind in ("localvol", "termstruct"):
        if kind == "localvol":
            expiries = [0.25, 0.5, 1.0, 2.0]
            mny = [0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3]
            skew, lvl = rnd.choice([0.0, 0.1, 0.25]), rnd.choice([0.15, 0.25])
            vols = [[lvl - skew * (m - 1.0) + 0.02 * math.sqrt(e) for m in mny] for e in expiries]
            assets[name] = {"spot": spot, "dividend_yield": q, "model": "local_vol",
                            "vol_surface": {"expiries": expiries, "strikes": [spot * m for m in mny], "vols": vols}}
            i_e, i_k = rnd.randrange(len(expiries)), rnd.randrange(len(mny))
            T, K, sig, qT = expiries[i_e], spot * mny[i_k], vols[i_e][i_k], q
        else:
            times = [0.5, 1.0, 2.0]
            qs = [rnd.choice([0.0, 0.01, 0.03]) for _ in times]
            vs = sorted([rnd.choice([0.15, 0.2, 0.3]) for _ in times], reverse=rnd.random() < 0.5)
            # total variance must not fall
            for j in range(1, len(times)):
                if vs[j] ** 2 * times[j] < vs[j - 1] ** 2 * times[j - 1]:
                    vs[j] = vs[j - 1] * math.sqrt(times[j - 1] / times[j]) + 0.01
            assets[name] = {"spot": spot, "dividend_yield": {"times": times, "rates": qs},
                            "vol": {"times": times, "vols": vs}}
            j = rnd.randrange(len(times))
            T, sig, qT = times[j], vs[j], qs[j]
        fwd = spot * math.exp((r - qT) * T)
        ref = ql.blackFormula(qt, K, fwd, sig * math.sqrt(T), math.exp(-r * T))
        add(tid, dict(underlying=name, maturity=repr(T), type=side, product="vanilla", strike=repr(K)), ref)
    elif kind == "bates":
        v0, kappa, theta, xi, rho = 0.04, 1.5, 0.05, 0.4, -0.6
        lam, m, v = rnd.choice([0.3, 1.0]), rnd.choice([-0.1, 0.05]), rnd.choice([0.1, 0.25])
        assets[name] = {"spot": spot, "dividend_yield": q, "model": "heston",
                        "heston": {"v0": v0, "kappa": kappa, "theta": theta, "xi": xi, "rho": rho},
                        "jumps": {"intensity": lam, "mean": m, "vol": v}}
        bp = ql.BatesProcess(rts, qts, s, v0, kappa, theta, xi, rho, lam, m, v)
        opt = ql.VanillaOption(ql.PlainVanillaPayoff(qt, K), ql.EuropeanExercise(mat))
        opt.setPricingEngine(ql.BatesEngine(ql.BatesModel(bp)))
        add(tid, dict(base, product="vanilla", strike=repr(K)), opt.NPV())
    elif kind == "bermudan":
        nd = rnd.choice([4, 12])
        days, dates = even_schedule(days, nd)
        base["maturity"] = repr(days / 365.0)
        opt = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Put, K), ql.BermudanExercise(dates))
        opt.setPricingEngine(ql.FdBlackScholesVanillaEngine(p, 800, 800))
        add(tid, dict(base, type="put", product="vanilla", exercise="bermudan", exercise_dates=str(nd),
                      strike=repr(K)), opt.NPV(), inst=opt)
    elif kind == "geo_floating":
        # QuantLib's engine takes the first fixing as today's spot (its times run from it), so the
        # average is over today and nf equally spaced dates after it, the last at maturity.
        nf = rnd.choice([4, 12])
        days, dates = even_schedule(days, nf)
        base["maturity"] = repr(days / 365.0)
        dates = [today] + dates
        times = ";".join(repr((d - today) / 365.0) for d in dates)
        opt = ql.DiscreteAveragingAsianOption(ql.Average.Geometric, 1.0, 0, dates,
                                              ql.PlainVanillaPayoff(qt, 0.0), ql.EuropeanExercise(today + days))
        opt.setPricingEngine(ql.AnalyticDiscreteGeometricAverageStrikeAsianEngine(p))
        add(tid, dict(base, product="asian", averaging="geometric", strike_kind="floating", fixing_times=times),
            opt.NPV(), inst=opt)
    elif kind in ("stulz", "margrabe"):
        name2, spot2, q2, vol2 = new_asset(f"{i}b")
        p2 = proc(spot2, q2, vol2)[0]
        rho = rnd.choice([-0.5, 0.0, 0.3, 0.8])
        corr[f"{name},{name2}"] = rho
        if kind == "stulz":
            which = rnd.choice(["best_of", "worst_of"])
            K = 0.5 * (spot + spot2) * rnd.choice([0.8, 1.0, 1.2])
            bp = ql.MaxBasketPayoff(ql.PlainVanillaPayoff(qt, K)) if which == "best_of" else \
                ql.MinBasketPayoff(ql.PlainVanillaPayoff(qt, K))
            opt = ql.BasketOption(bp, ql.EuropeanExercise(mat))
            opt.setPricingEngine(ql.StulzEngine(p, p2, rho))
            add(tid, dict(base, underlying=f"{name};{name2}", product=which, strike=repr(K)), opt.NPV())
        else:
            sig = math.sqrt(vol * vol + vol2 * vol2 - 2 * rho * vol * vol2)
            f1, f2 = spot * math.exp(-q * T), spot2 * math.exp(-q2 * T)
            d1 = (math.log(f1 / f2) + 0.5 * sig * sig * T) / (sig * math.sqrt(T))
            nc = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
            ref = f1 * nc(d1) - f2 * nc(d1 - sig * math.sqrt(T))
            add(tid, dict(base, type="call", underlying=f"{name};{name2}", product="spread", strike="0"), ref)
    elif kind == "cliquet":
        if r != 0.0 or q != 0.0:
            continue
        nper = 4
        step = days // nper
        if step * nper != days:
            continue
        resets = [today + step * k for k in range(nper)]
        mat = today + step * nper
        m = 1.0

        def cl(mny):
            o = ql.CliquetOption(ql.PercentageStrikePayoff(ql.Option.Call, mny), ql.EuropeanExercise(mat), resets)
            o.setPricingEngine(ql.AnalyticCliquetEngine(p))
            return o.NPV() / spot
        f = -0.05
        ref = nper * f + cl(1 + f)  # sum of max(r_i, f)
        times = ";".join(repr(step * (k + 1) / 365.0) for k in range(nper))
        add(tid, dict(underlying=name, maturity=repr(step * nper / 365.0), product="cliquet", type="call",
                      fixing_times=times, local_floor=repr(f)), ref)

market = {"rate": r, "assets": assets, "correlation": corr}
cols = sorted({k for t in trades for k in t})
cols.remove("id")
cols = ["id"] + cols
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "m.json"), "w") as f:
        json.dump(market, f)
    with open(os.path.join(d, "b.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for t in trades:
            w.writerow(t)
    # JSON results: the Greeks' standard errors are written there only.
    cmd = [pb, os.path.join(d, "b.csv"), "--market", os.path.join(d, "m.json"), "--backend", "cpu", "--paths", paths,
           "--seed", str(seed), "--out", os.path.join(d, "o.json"), "--format", "json"]
    if greeks:
        cmd.append("--greeks")
    cmd += os.environ.get("EXTRA", "").split()
    rc = subprocess.run(cmd, capture_output=True, text=True)
    if rc.returncode not in (0, 2):
        print(rc.stderr)
        sys.exit(1)
    rows = json.load(open(os.path.join(d, "o.json")))["results"]
bad = 0
bad_greeks = 0
for row in rows:
    ref, gr, what = refs[row["id"]]
    if row["status"] != "ok":
        print("ERROR", row["id"], row["message"])
        bad += 1
        continue
    price, se = row["price"], row["std_error"]
    allowance = 0.002 * abs(ref) + 1e-4
    if "american" in row["id"] or row["id"].endswith("_heston") or "barrier" in row["id"] or "touch" in row["id"] \
            or "lookback" in row["id"] or "localvol" in row["id"] or "bermudan" in row["id"] \
            or "bates" in row["id"]:
        allowance = 0.01 * abs(ref) + 2e-3
    z = (price - ref) / max(se, 1e-12)
    flag = abs(price - ref) > 4 * se + allowance
    if flag:
        bad += 1
    if flag or "-v" in sys.argv:
        tr = next(t for t in trades if t["id"] == row["id"])
        print(("BAD " if flag else "ok  ") + f"{row['id']:<22} mc {price:.5f} se {se:.5f} ql {ref:.5f} z {z:+.1f}",
              json.dumps(tr), json.dumps([assets[u] for u in tr["underlying"].split(";")]))
    if greeks and gr:
        for g, v in gr.items():
            got, gse = row.get(g), row.get(g + "_std_error")
            if not isinstance(got, float) or not isinstance(gse, float):  # none, or one per asset
                continue
            outside = abs(got - v) > 4 * gse + 0.02 * abs(v) + (0.02 if g != "gamma" else 0.002)
            bad_greeks += outside
            if outside or "-v" in sys.argv:
                print(("GREEK " if outside else "ok    ") +
                      f"{row['id']} {g} mc {got:.5f} se {gse:.5f} ql {v:.5f} z {(got - v) / max(gse, 1e-12):+.1f}")
print(f"seed {seed} r {r}: {len(rows)} trades, {bad} outside 4 se + allowance"
      + (f"; {bad_greeks} Greeks outside 4 se + allowance" if greeks else ""))
