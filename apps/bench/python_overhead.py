# Python overhead: Engine.price on a 10,000-trade book (a path, a DataFrame) against the same
# call from C++ (read the file and price it: _Engine._cpp_call_seconds). The three calls take
# turns, ROUNDS rounds, so that the machine's drift falls on all three alike; the figures are
# each call's median and best.
#   PYTHONPATH=build/python python3 apps/bench/python_overhead.py cpu|gpu PATHS [ROUNDS]
import os
import statistics
import sys
import time

import pandas as pd

import mcprice

n = 10000
rows = [{"id": f"T{i}", "product": "vanilla", "type": "call" if i % 2 else "put", "underlying": ["ABC", "DEF"][i % 2],
         "strike": 80 + (i % 41), "maturity": 0.25 + (i % 8) * 0.25} for i in range(n)]
df = pd.DataFrame(rows)
BOOK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "mcprice_book10k.csv")
df.to_csv(BOOK, index=False)
paths = int(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
eng = mcprice.Engine("data/sample_market.json", backend=sys.argv[1], paths=paths, threads=2)


def timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


calls = {"C++ call": lambda: eng._engine._cpp_call_seconds(BOOK), "price(path)": lambda: eng.price(BOOK),
         "price(DataFrame)": lambda: eng.price(df)}
seconds = {name: [] for name in calls}
for call in calls.values():  # warm: the first call on a GPU engine pays its start
    call()
for _ in range(rounds):
    for name, call in calls.items():
        seconds[name].append(timed(call))
base_median = statistics.median(seconds["C++ call"])
base_best = min(seconds["C++ call"])
print(f"{n} trades, {paths} paths a trade, {eng.backend}, {rounds} rounds (median / best):")
for name, s in seconds.items():
    median, best = statistics.median(s), min(s)
    print(f"  {name:17s} {median * 1e3:7.2f} / {best * 1e3:7.2f} ms   {median / base_median:.3f}x / {best / base_best:.3f}x")
