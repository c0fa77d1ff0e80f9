"""A few vanillas against QuantLib's analytic Black-Scholes engine, where QuantLib's Python
bindings are installed (skipped with a message otherwise): the difference in standard errors.

    PYTHONPATH=build/python python3 examples/python/against_quantlib.py [--backend cpu]
"""
import argparse
import json
import os
import sys

import mcprice

try:
    import QuantLib as ql
except ImportError:
    print("QuantLib's Python bindings are not installed: nothing to compare (skipped)")
    sys.exit(0)

root = os.path.join(os.path.dirname(__file__), "..", "..")
parser = argparse.ArgumentParser()
parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
args = parser.parse_args()

# A flat market, so that QuantLib's flat curves are the same market.
market = {"rate": 0.03, "assets": {"X": {"spot": 100.0, "dividend_yield": 0.01, "vol": 0.25}}}
trades = [{"id": f"{t}{k}", "product": "vanilla", "type": t, "underlying": "X", "strike": k, "maturity": 1.0}
          for t in ("call", "put") for k in (80, 100, 120)]
results = mcprice.Engine(market, backend=args.backend, paths=1_000_000).price(trades)

today = ql.Date(2, 12, 2026)
ql.Settings.instance().evaluationDate = today
day_count = ql.Actual365Fixed()
spot = ql.QuoteHandle(ql.SimpleQuote(100.0))
rates = ql.YieldTermStructureHandle(ql.FlatForward(today, 0.03, day_count))
dividends = ql.YieldTermStructureHandle(ql.FlatForward(today, 0.01, day_count))
vol = ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(), 0.25, day_count))
process = ql.BlackScholesMertonProcess(spot, dividends, rates, vol)
for trade, (_, row) in zip(trades, results.iterrows()):
    kind = ql.Option.Call if trade["type"] == "call" else ql.Option.Put
    option = ql.VanillaOption(ql.PlainVanillaPayoff(kind, trade["strike"]), ql.EuropeanExercise(today + 365))
    option.setPricingEngine(ql.AnalyticEuropeanEngine(process))
    z = (row.price - option.NPV()) / row.std_error
    print(f"{trade['id']:8s} mcprice {row.price:10.5f} +- {row.std_error:.5f}  QuantLib {option.NPV():10.5f}  z {z:+.2f}")
