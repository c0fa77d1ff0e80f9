# Where Engine.price's time goes over the C++ call, 10,000 vanillas, part by part (best of 9).
#   PYTHONPATH=build/python python3 apps/bench/python_profile.py cpu|gpu PATHS
import time, sys
import pandas as pd
import mcprice
from mcprice import _book_columns, _results_frame
n = 10000
rows = [{"id": f"T{i}", "product": "vanilla", "type": "call" if i % 2 else "put", "underlying": ["ABC", "DEF"][i % 2],
         "strike": 80 + (i % 41), "maturity": 0.25 + (i % 8) * 0.25} for i in range(n)]
df = pd.DataFrame(rows)
print(df.dtypes.to_dict(), [type(mcprice._column_buffer(df[c])).__name__ for c in df.columns])
BOOK = "/tmp/book10k.csv"; df.to_csv(BOOK, index=False)
eng = mcprice.Engine("data/sample_market.json", backend=sys.argv[1], paths=int(sys.argv[2]))
def t(f, k=9):
    best = 1e9
    for _ in range(k):
        s = time.perf_counter(); r = f(); best = min(best, time.perf_counter() - s)
    return best * 1e3, r
cols = _book_columns(df)
from mcprice._mcprice import _table_cells
for name, f in [("cpp call", lambda: eng._engine._cpp_call_seconds(BOOK)), ("book_columns", lambda: _book_columns(df)),
                ("table_cells (+lists)", lambda: _table_cells(*cols)),
                ("price(path) raw", lambda: eng._engine.price(BOOK)),
                ("price_table raw", lambda: eng._engine.price_table(*cols, "<x>", None))]:
    ms, r = t(f)
    print(f"{name:22s} {ms:8.3f} ms" + (f"  (inside: {r*1e3:.3f} ms)" if isinstance(r, float) else ""))
res = eng._engine.price(BOOK)
print(f"{'results_frame':22s} {t(lambda: _results_frame(res))[0]:8.3f} ms")
