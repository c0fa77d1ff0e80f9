"""A local-volatility arithmetic Asian in PyTorch with torch.compile: the peer a quant would write.

252 daily log Euler steps, each reading sigma(t, ln S/S0) bilinearly from a 101 x 201 grid (the
size of mcprice's grid), N paths in float32 on the GPU, the step compiled by torch.compile and
called once a step. The grid is a smooth smile (a stand-in for a Dupire grid: the work per step
is what is compared, not the surface). Prints one JSON line per N with path-steps per second.
    python3 local_vol_asian_peer.py [N ...]
"""
import json
import math
import sys
import time

import torch

TIMES, POINTS, HORIZON, HALF_WIDTH = 101, 201, 2.0, 3.0


def make_grid():
    t = torch.linspace(0.0, HORIZON, TIMES, device="cuda").unsqueeze(1)
    x = torch.linspace(-HALF_WIDTH, HALF_WIDTH, POINTS, device="cuda").unsqueeze(0)
    return (0.2 + 0.1 * x * x / (1.0 + x * x) - 0.05 * x / (1.0 + t)).contiguous()


@torch.compile
def step(x, total, z, grid, t, dt, drift):
    u = torch.clamp(torch.zeros_like(x) + t * ((TIMES - 1) / HORIZON), 0.0, TIMES - 1.0)
    v = torch.clamp((x + HALF_WIDTH) * ((POINTS - 1) / (2.0 * HALF_WIDTH)), 0.0, POINTS - 1.0)
    i = torch.clamp(u.floor().long(), max=TIMES - 2)
    j = torch.clamp(v.floor().long(), max=POINTS - 2)
    a = u - i
    b = v - j
    flat = grid.reshape(-1)
    base = i * POINTS + j
    lo = flat[base] + b * (flat[base + 1] - flat[base])
    hi = flat[base + POINTS] + b * (flat[base + POINTS + 1] - flat[base + POINTS])
    sigma = lo + a * (hi - lo)
    x = x + drift * dt - 0.5 * sigma * sigma * dt + sigma * math.sqrt(dt) * z
    return x, total + torch.exp(x)


def asian(n, grid, steps=252, s0=100.0, k=100.0, r=0.02, t=1.0, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = t / steps
    x = torch.zeros(n, device="cuda")
    total = torch.zeros(n, device="cuda")
    # The step's time as a tensor: a Python float would recompile the step at every new value.
    times = torch.arange(steps, device="cuda", dtype=torch.float32) * dt
    for s in range(steps):
        z = torch.randn(n, device="cuda", generator=g)
        x, total = step(x, total, z, grid, times[s], dt, r)
    payoff = torch.clamp(s0 * total / steps - k, min=0.0)
    return math.exp(-r * t) * float(payoff.mean())


def main():
    sizes = [int(float(a)) for a in sys.argv[1:]] or [1 << 21]
    grid = make_grid()
    for n in sizes:
        asian(n, grid)  # compile and warm up
        torch.cuda.synchronize()
        times = []
        for rep in range(3):
            t0 = time.perf_counter()
            price = asian(n, grid, seed=rep + 1)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        times.sort()
        print(json.dumps({"peer": "torch-compile-local-vol-asian", "paths": n, "steps": 252, "price": round(price, 5),
                          "median_s": round(times[1], 5), "path_steps_per_s": round(n * 252 / times[1], 1)}))


if __name__ == "__main__":
    main()
