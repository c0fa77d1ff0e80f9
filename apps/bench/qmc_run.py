#!/usr/bin/env python3
"""Issue 33's measurements in one device call (docs/benchmarks.md): price-batch runs only.

1. Variance reduction at equal total paths: apps/bench/qmc/variance_book.csv at 2^20 paths,
   Philox (antithetic pairs, its default) and Sobol (32 replicates), and both again with plain
   paths; the ratio is Philox's std_error^2 over Sobol's.
2. Time to a standard error of 1e-4 of the price, a warm engine call (mcprice-qmc-bench): the European book (8192 options, made here) and the 252-fixing Asian, with its
   control variate and without. Each rng searches the first power of two of paths a trade at
   which every trade is within the target (time_to_error); the time there counts.

Usage (from the repository root, on the GPU machine; a call's carried binaries are limited, so
the two parts may run in separate calls):
  qmc_run.py variance PRICE_BATCH
  qmc_run.py time MCPRICE_QMC_BENCH [OUT_DIR]
"""
import csv
import io
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MARKET = os.path.join(HERE, "qmc", "market.json")
HEADER = "id,product,type,underlying,strike,maturity,notional"


def run(binary, book, paths, extra):
    cmd = [binary, book, "--market", MARKET, "--backend", "gpu", "--paths", str(paths), "--steps", "64"] + extra
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 2):
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr}")
    seconds = float(re.search(r"paths, ([0-9.]+) s,", done.stderr).group(1))
    return list(csv.DictReader(io.StringIO(done.stdout))), seconds


def variance_table(binary):
    book = os.path.join(HERE, "qmc", "variance_book.csv")
    paths = 1 << 20
    runs = {}
    for name, extra in [("philox", []), ("sobol", ["--rng", "sobol"]),
                        ("philox plain", ["--antithetic", "off"]), ("sobol plain", ["--rng", "sobol", "--antithetic", "off"])]:
        runs[name], _ = run(binary, book, paths, extra)
    print(f"## variance reduction at {paths} paths a trade (ratio: philox se^2 / sobol se^2)")
    print("| workload | philox price +- se | sobol price +- se | ratio (pairs) | ratio (plain paths) |")
    print("|---|---|---|---|---|")
    for i, row in enumerate(runs["philox"]):
        s = runs["sobol"][i]
        ratio = (float(row["std_error"]) / float(s["std_error"])) ** 2
        plain = (float(runs["philox plain"][i]["std_error"]) / float(runs["sobol plain"][i]["std_error"])) ** 2
        print(f"| {row['id']} | {float(row['price']):.5f} +- {float(row['std_error']):.2e} "
              f"| {float(s['price']):.5f} +- {float(s['std_error']):.2e} | {ratio:.1f}x | {plain:.1f}x |")


def european_book(path):
    """8192 options at or in the money (a relative error of 1e-4 on a far out-of-the-money option
    is a question of its tail, not of the engine): calls struck 90-100, puts 100-110, 0.5-2 years."""
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for i in range(8192):
            call = i % 2 == 0
            strike = (90 + (i // 2) % 11) if call else (100 + (i // 2) % 11)
            maturity = 0.5 + 0.25 * ((i // 22) % 7)
            f.write(f"E{i},vanilla,{'call' if call else 'put'},S,{strike},{maturity},1\n")
    return path


def warm_call(bench, book, rng, paths, control):
    cmd = [bench, book, MARKET, rng, str(paths), "64", control]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr}")
    fields = done.stdout.split()
    return float(fields[3]), float(fields[5])


def time_to_error(bench, book, control="on", target=1e-4, start=1 << 14, limit=1 << 30):
    """The first power of two of paths a trade at which every trade's se/price <= target, and
    the warm engine call's time there (mcprice-qmc-bench). The next guess scales by the error's
    ratio squared for Philox (se ~ N^-1/2), by the ratio alone for Sobol (closer to N^-1 on
    these smooth payoffs), and at least doubles."""
    out = []
    for rng, power in [("pseudo", 2), ("sobol", 1)]:
        paths = start
        while True:
            worst, seconds = warm_call(bench, book, rng, paths, control)
            print(f"    {rng} {paths}: worst se/price {worst:.2e}, {seconds * 1e3:.2f} ms")
            if worst <= target or paths >= limit:
                break
            guess = 1 << math.ceil(math.log2(paths * (worst / target) ** power))
            paths = min(limit, max(2 * paths, guess))
        out.append((rng, paths, worst, seconds))
        print(f"  {rng}: {paths} paths a trade, worst se/price {worst:.2e}, {seconds * 1e3:.2f} ms")
    print(f"  sobol is {out[0][3] / out[1][3]:.1f}x faster to se/price <= {target}")


def main():
    mode, binary = sys.argv[1], sys.argv[2]
    out_dir = sys.argv[3] if len(sys.argv) > 3 else "/tmp"
    if mode == "variance":
        variance_table(binary)
        return
    print("## time to se/price <= 1e-4, warm engine call (mcprice-qmc-bench: median of 3 after one untimed)")
    print("European book, 8192 options:")
    time_to_error(binary, european_book(os.path.join(out_dir, "european_8192.csv")))
    asian = os.path.join(HERE, "qmc", "asian_252.csv")
    print("252-fixing arithmetic Asian, its control variate on (the default):")
    time_to_error(binary, asian)
    print("252-fixing arithmetic Asian, control variate off:")
    time_to_error(binary, asian, "off")


if __name__ == "__main__":
    main()
