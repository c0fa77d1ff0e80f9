# Python overhead: Engine.price on a 10,000-trade book (a path, a DataFrame) against the same
# call from C++ (read the file and price it: _Engine._cpp_call_seconds).
#   PYTHONPATH=build/python python3 apps/bench/python_overhead.py cpu|gpu PATHS
import time, sys, os
import pandas as pd
import mcprice
n = 10000
rows = [{"id": f"T{i}", "product": "vanilla", "type": "call" if i % 2 else "put", "underlying": ["ABC", "DEF"][i % 2],
         "strike": 80 + (i % 41), "maturity": 0.25 + (i % 8) * 0.25} for i in range(n)]
df = pd.DataFrame(rows)
BOOK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "mcprice_book10k.csv")
df.to_csv(BOOK, index=False)
eng = mcprice.Engine("data/sample_market.json", backend=sys.argv[1], paths=int(sys.argv[2]), threads=2)
def t(f):
    best = 1e9
    for _ in range(3):
        s = time.perf_counter(); f(); best = min(best, time.perf_counter() - s)
    return best
raw = min(eng._engine._cpp_call_seconds(BOOK) for _ in range(3))
path = t(lambda: eng.price(BOOK))
frame = t(lambda: eng.price(df))
print(f"{n} trades, {sys.argv[2]} paths: C++ call (read file, price) {raw*1e3:.1f} ms; "
      f"Engine.price(path) {path*1e3:.1f} ms ({path/raw:.3f}x); Engine.price(DataFrame) {frame*1e3:.1f} ms ({frame/raw:.3f}x)")
