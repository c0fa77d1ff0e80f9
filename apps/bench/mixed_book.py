#!/usr/bin/env python3
"""A large mixed book for the scale-out benchmark (docs/scale-out.md): the sample portfolio's
rows repeated under new ids, strikes moved by up to +-10% (seeded), one vanilla put in five made
American. Usage: mixed_book.py SAMPLE_CSV TRADES OUT_CSV"""
import csv
import random
import sys


def main():
    sample, trades, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(sample) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    rows = [r for r in rows if r["product"] != "spread"]  # mixed-model spreads are refused
    rng = random.Random(7)
    fields = list(rows[0].keys()) + ["exercise"]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for i in range(trades):
            r = dict(rows[i % len(rows)])
            r["id"] = f"{r['id']}-{i}"
            if r["strike"]:
                r["strike"] = f"{float(r['strike']) * rng.uniform(0.9, 1.1):.4f}"
            r["exercise"] = "american" if r["product"] == "vanilla" and r["type"] == "put" and (i // len(rows)) % 5 == 0 else ""
            w.writerow(r)


if __name__ == "__main__":
    main()
