"""The local-vol worst-of-3 autocallable book in PyTorch with torch.compile: the peer a quant would write.

The book of `mcprice-autocall-book`, without Greeks: 5-year notes observed quarterly (calls from
100% stepping down 1% a quarter less 2% x (i mod 5), coupons of 1.5% + 0.1% x (i mod 10) above
80% with memory, a knock-in at 60% watched daily with the Brownian-bridge crossing probability of
the worst performance, 1,260 steps; every third note seasoned 5% up or down) on three correlated
local-vol assets. Each asset's sigma(t, ln S/S0) is read bilinearly from a 101 x 201 grid (the
size of mcprice's Dupire grids) at every step; the grids are smooth skews standing in for Dupire
grids: the work per step is what is compared, not the surface, so the prices differ from
mcprice's. Float32 plain paths on the GPU; CHUNK notes' paths are stacked into one tensor and
stepped by one compiled function a step; every path walks every step (a masked tensor program
does not stop early), so every note costs the same and a run over the first TRADES notes times
the book at TRADES / 1000 of its work. Prints one JSON line.
    python3 worst_of_autocall_book_peer.py [TRADES (1000)] [PATHS (100000)] [CHUNK (10)]
"""
import json
import math
import sys
import time

import torch

SPOTS = [100.0, 80.0, 120.0]
ATM = [0.25, 0.3, 0.2]
YIELDS = [0.02, 0.01, 0.0]
CORR = [[1.0, 0.6, 0.5], [0.6, 1.0, 0.55], [0.5, 0.55, 1.0]]
RATE, YEARS, STEPS, OBS_EVERY = 0.03, 5.0, 1260, 63
COUPON_LEVEL, KI = 0.8, 0.6
TIMES, POINTS, HALF_WIDTH = 101, 201, 3.0


def make_grids():
    t = torch.linspace(0.0, YEARS, TIMES, device="cuda").unsqueeze(1)
    x = torch.linspace(-HALF_WIDTH, HALF_WIDTH, POINTS, device="cuda").unsqueeze(0)
    grids = [(atm - 0.12 * x / torch.sqrt(1.0 + t) + 0.04 * x * x / (1.0 + x * x)).clamp(min=0.05) for atm in ATM]
    return torch.stack(grids).reshape(-1).contiguous()


@torch.compile
def step(x, perf_offset, worst, survive, z, chol, grids, t, dt, drift, log_ki):
    u = torch.clamp(t * ((TIMES - 1) / YEARS), 0.0, TIMES - 1.0)
    i = torch.clamp(u.floor().long(), max=TIMES - 2)
    a = u - i
    v = torch.clamp((x + HALF_WIDTH) * ((POINTS - 1) / (2.0 * HALF_WIDTH)), 0.0, POINTS - 1.0)
    j = torch.clamp(v.floor().long(), max=POINTS - 2)
    b = v - j
    asset = torch.arange(3, device=x.device) * (TIMES * POINTS)
    base = asset + i * POINTS + j
    lo = grids[base] + b * (grids[base + 1] - grids[base])
    hi = grids[base + POINTS] + b * (grids[base + POINTS + 1] - grids[base + POINTS])
    sigma = lo + a * (hi - lo)
    var = sigma * sigma * dt
    x = x + drift - 0.5 * var + sigma * math.sqrt(dt) * (z @ chol.T)
    new_worst, at = torch.min(x - perf_offset, dim=1)
    v_worst = torch.gather(var, 1, at.unsqueeze(1)).squeeze(1)
    hit = torch.where((worst > log_ki) & (new_worst > log_ki),
                      torch.exp(-2.0 * (log_ki - worst) * (log_ki - new_worst) / v_worst), torch.ones_like(worst))
    return x, new_worst, survive * (1.0 - hit)


def chunk_values(first, count, paths, grids, chol, seed):
    n = count * paths
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = YEARS / STEPS
    drift = (RATE - torch.tensor(YIELDS, device="cuda")) * dt
    notes = torch.arange(first, first + count, device="cuda").repeat_interleave(paths)
    level = torch.ones(n, 3, device="cuda")
    level[notes % 3 == 1] = 1.05
    level[notes % 3 == 2] = 0.95
    perf_offset = torch.log(level)
    coupon = 0.015 + 0.001 * (notes % 10).float()
    call_shift = 0.02 * (notes % 5).float()
    x = torch.zeros(n, 3, device="cuda")
    worst, _ = torch.min(x - perf_offset, dim=1)
    survive = torch.ones(n, device="cuda")
    alive = torch.ones(n, device="cuda")
    missed = torch.zeros(n, device="cuda")
    value = torch.zeros(n, device="cuda")
    times = torch.arange(STEPS, device="cuda", dtype=torch.float32) * dt
    log_ki = math.log(KI)
    for s in range(1, STEPS + 1):
        z = torch.randn(n, 3, device="cuda", generator=g)
        x, worst, survive = step(x, perf_offset, worst, survive, z, chol, grids, times[s - 1], dt, drift, log_ki)
        if s % OBS_EVERY == 0:
            obs = s // OBS_EVERY
            df = math.exp(-RATE * s * dt)
            paid = (worst >= math.log(COUPON_LEVEL)).float() * alive
            value += paid * coupon * (missed + 1.0) * df
            missed = torch.where(paid > 0, torch.zeros_like(missed), missed + alive)
            if s < STEPS:
                called = (worst >= torch.log(1.0 - 0.01 * (obs - 1) - call_shift)).float() * alive
                value += called * df
                alive = alive - called
    loss = torch.clamp(1.0 - torch.exp(worst), min=0.0)
    value += alive * math.exp(-RATE * YEARS) * (1.0 - (1.0 - survive) * loss)
    return value.reshape(count, paths).mean(dim=1)


def main():
    trades = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1000
    paths = int(float(sys.argv[2])) if len(sys.argv) > 2 else 100000
    chunk = int(float(sys.argv[3])) if len(sys.argv) > 3 else 10
    grids = make_grids()
    chol = torch.linalg.cholesky(torch.tensor(CORR, device="cuda"))
    chunk_values(0, chunk, paths, grids, chol, 0)  # compile and warm up
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    prices = []
    for first in range(0, trades, chunk):
        prices.append(chunk_values(first, min(chunk, trades - first), paths, grids, chol, first + 1))
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    mean_price = float(torch.cat(prices).mean())
    print(json.dumps({"peer": "torch-compile-local-vol-worst-of-3-book", "trades": trades, "paths": paths,
                      "steps": STEPS, "chunk": chunk, "wall_s": round(wall, 4),
                      "book_1000_s": round(wall * 1000.0 / trades, 4), "mean_price": round(mean_price, 5),
                      "path_steps_per_s": round(trades * paths * STEPS / wall, 1)}))


if __name__ == "__main__":
    main()
