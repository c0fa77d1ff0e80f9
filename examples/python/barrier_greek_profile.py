"""Delta and gamma of an up-and-out call over spot, from the engine's pathwise Greeks: one
market per spot (the market as a dict), the same trade, plotted to a PNG with matplotlib when it
is installed (the table is printed either way).

    PYTHONPATH=build/python python3 examples/python/barrier_greek_profile.py [--backend cpu] [--out profile.png]
"""
import argparse
import copy
import json
import os

import mcprice

root = os.path.join(os.path.dirname(__file__), "..", "..")
parser = argparse.ArgumentParser()
parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
parser.add_argument("--paths", type=int, default=200_000)
parser.add_argument("--out", default="barrier_profile.png")
args = parser.parse_args()

with open(os.path.join(root, "data", "sample_market.json")) as f:
    base = json.load(f)
trade = {"id": "UO", "product": "barrier", "type": "call", "underlying": "ABC", "strike": 100, "maturity": 1,
         "barrier": 130, "barrier_kind": "up-out", "monitoring": "continuous"}

spots = list(range(70, 130, 5))  # up to the barrier
rows = []
for spot in spots:
    market = copy.deepcopy(base)
    market["assets"]["ABC"]["spot"] = spot
    engine = mcprice.Engine(market, backend=args.backend, paths=args.paths, greeks=True)
    r = engine.price([trade]).iloc[0]
    if r.status != "ok":
        raise SystemExit(f"spot {spot}: {r.message}")
    rows.append((spot, r.price, r.delta, r.gamma))
    print(f"spot {spot:4d}  price {r.price:9.4f}  delta {r.delta:8.4f}  gamma {r.gamma:8.5f}")

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot (apt-get install python3-matplotlib)")
else:
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
    a.plot(spots, [r[2] for r in rows], marker="o")
    a.set(title="delta", xlabel="spot")
    b.plot(spots, [r[3] for r in rows], marker="o", color="C1")
    b.set(title="gamma", xlabel="spot")
    fig.suptitle("up-and-out call, K 100, B 130, 1y")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
