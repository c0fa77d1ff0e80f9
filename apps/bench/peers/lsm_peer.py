"""Longstaff-Schwartz in PyTorch: the peer a quant would write for an American put.

Longstaff and Schwartz's case (S = 36, K = 40, r = 0.06, sigma = 0.2, T = 1, 50 exercise dates),
N paths in float32 on the GPU, the basis 1, y, y^2, y^3 (y = S/K) on in-the-money paths solved by
torch.linalg.lstsq, the price in-sample (the paper's estimator). Prints one JSON line per N.
    python3 lsm_peer.py [N ...]
"""
import json
import math
import sys
import time

import torch


def lsm(n, dates=50, s0=36.0, k=40.0, r=0.06, sig=0.2, t=1.0, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = t / dates
    z = torch.randn(n, dates, device="cuda", generator=g)
    s = s0 * torch.exp(torch.cumsum((r - 0.5 * sig * sig) * dt + sig * math.sqrt(dt) * z, dim=1))
    disc = math.exp(-r * dt)
    cf = torch.clamp(k - s[:, -1], min=0.0)
    for d in range(dates - 2, -1, -1):
        cf = cf * disc
        sd = s[:, d]
        ex = torch.clamp(k - sd, min=0.0)
        idx = (ex > 0).nonzero().squeeze(1)
        y = sd[idx] / k
        a = torch.stack([torch.ones_like(y), y, y * y, y * y * y], 1)
        beta = torch.linalg.lstsq(a, cf[idx].unsqueeze(1)).solution
        cont = (a @ beta).squeeze(1)
        take = idx[ex[idx] > cont]
        cf[take] = ex[take]
    return float((cf * disc).mean())


def main():
    sizes = [int(float(a)) for a in sys.argv[1:]] or [1 << 20]
    for n in sizes:
        lsm(n)  # warm-up
        torch.cuda.synchronize()
        times = []
        for rep in range(3):
            t0 = time.perf_counter()
            price = lsm(n, seed=rep + 1)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        times.sort()
        print(json.dumps({"peer": "torch-lsm", "paths": n, "dates": 50, "price": round(price, 5),
                          "median_s": round(times[1], 5), "paths_per_s": round(n / times[1], 1)}))


if __name__ == "__main__":
    main()
