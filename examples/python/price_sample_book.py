"""Prices the sample book and prints the trades that priced, with their standard errors.

    PYTHONPATH=build/python python3 examples/python/price_sample_book.py [--backend cpu]
"""
import argparse
import os

import mcprice

root = os.path.join(os.path.dirname(__file__), "..", "..")
parser = argparse.ArgumentParser()
parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
parser.add_argument("--paths", type=int, default=100_000)
args = parser.parse_args()

engine = mcprice.Engine(os.path.join(root, "data", "sample_market.json"), backend=args.backend, paths=args.paths,
                        greeks=True)
results = engine.price(os.path.join(root, "data", "sample_portfolio.csv"))
print(f"priced on the {engine.backend}" + (f" ({engine.device_name})" if engine.backend == "gpu" else ""))
print(results.loc[results.status == "ok", ["id", "price", "std_error", "delta", "vega"]].to_string(index=False))
for _, row in results[results.status != "ok"].iterrows():
    print(f"{row.id}: {row.status}: {row.message}")
