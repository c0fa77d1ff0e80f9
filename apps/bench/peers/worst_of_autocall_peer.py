"""A worst-of-3 autocallable in PyTorch with torch.compile: the peer a quant would write.

The note of `mcprice-throughput autocall`: 5 years, quarterly observations (step-down-free autocall
at 100%, 2% memory coupons above 80%), a knock-in at 60% watched daily with the Brownian-bridge
crossing probability of the worst performance, 1,260 steps; three correlated GBM assets (the
same spots, vols, yields and correlations). N paths in float32 on the GPU, the step compiled by
torch.compile and called once a step; every path walks every step (a masked tensor program does
not stop early). Prints one JSON line per N with path-steps per second.
    python3 worst_of_autocall_peer.py [N ...]
"""
import json
import math
import sys
import time

import torch

SPOTS = [100.0, 80.0, 120.0]
VOLS = [0.25, 0.3, 0.2]
YIELDS = [0.02, 0.01, 0.0]
CORR = [[1.0, 0.6, 0.5], [0.6, 1.0, 0.55], [0.5, 0.55, 1.0]]
RATE, YEARS, STEPS, OBS_EVERY = 0.03, 5.0, 1260, 63
CALL, COUPON, COUPON_LEVEL, KI = 1.0, 0.02, 0.8, 0.6


@torch.compile
def step(x, chol, z, drift, vol, var):
    # Spots equal to their initial levels today: x is each asset's log performance.
    x = x + drift + vol * (z @ chol.T)
    worst, at = torch.min(x, dim=1)
    return x, worst, var[at]


@torch.compile
def knock(prev_worst, worst, v, survive, log_ki):
    # The bridge's probability that the worst performance crossed the knock-in inside the step.
    hit = torch.where((prev_worst > log_ki) & (worst > log_ki),
                      torch.exp(-2.0 * (log_ki - prev_worst) * (log_ki - worst) / v), torch.ones_like(worst))
    return survive * (1.0 - hit)


def autocall(n, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = YEARS / STEPS
    vol = torch.tensor(VOLS, device="cuda") * math.sqrt(dt)
    var = vol * vol
    drift = (RATE - torch.tensor(YIELDS, device="cuda")) * dt - 0.5 * var
    chol = torch.linalg.cholesky(torch.tensor(CORR, device="cuda"))
    x = torch.zeros(n, 3, device="cuda")
    worst = torch.zeros(n, device="cuda")
    survive = torch.ones(n, device="cuda")
    alive = torch.ones(n, device="cuda")
    missed = torch.zeros(n, device="cuda")
    value = torch.zeros(n, device="cuda")
    log_ki = math.log(KI)
    for s in range(1, STEPS + 1):
        z = torch.randn(n, 3, device="cuda", generator=g)
        prev = worst
        x, worst, v = step(x, chol, z, drift, vol, var)
        survive = knock(prev, worst, v, survive, log_ki)
        if s % OBS_EVERY == 0:
            t = s * dt
            df = math.exp(-RATE * t)
            paid = (worst >= math.log(COUPON_LEVEL)).float() * alive
            value += paid * COUPON * (missed + 1.0) * df
            missed = torch.where(paid > 0, torch.zeros_like(missed), missed + alive)
            if s < STEPS:
                called = (worst >= math.log(CALL)).float() * alive
                value += called * df
                alive = alive - called
    loss = torch.clamp(1.0 - torch.exp(worst), min=0.0)
    value += alive * math.exp(-RATE * YEARS) * (1.0 - (1.0 - survive) * loss)
    return float(value.mean())


def main():
    sizes = [int(float(a)) for a in sys.argv[1:]] or [1 << 20]
    for n in sizes:
        autocall(n)  # compile and warm up
        torch.cuda.synchronize()
        times = []
        for rep in range(3):
            t0 = time.perf_counter()
            price = autocall(n, seed=rep + 1)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        times.sort()
        print(json.dumps({"peer": "torch-compile-worst-of-3-autocallable", "paths": n, "steps": STEPS,
                          "price": round(price, 5), "median_s": round(times[1], 5),
                          "path_steps_per_s": round(n * STEPS / times[1], 1)}))


if __name__ == "__main__":
    main()
