# What pandas takes to make a 10,000-row text column, by route (Engine.price's results frame).
#   python3 apps/bench/pandas_text_costs.py      (needs pyarrow)
import time, numpy as np, pandas as pd, pyarrow as pa
n = 10000
ids = [f"T{i}" for i in range(n)]
blob = "".join(ids).encode()
offs = np.zeros(n + 1, dtype=np.int64); offs[1:] = np.cumsum([len(s) for s in ids])
def t(name, f):
    best = 1e9
    for _ in range(30):
        s = time.perf_counter(); r = f(); best = min(best, time.perf_counter() - s)
    try: d = r.dtype
    except Exception: d = type(r).__name__
    print(f"{name:50s} {best*1e3:7.3f} ms  {d}")
    return r
t("make 10k str list (python)", lambda: [f"T{i}" for i in range(n)])
arr = t("pa.LargeStringArray.from_buffers", lambda: pa.LargeStringArray.from_buffers(n, pa.py_buffer(offs), pa.py_buffer(blob)))
t("Series(ArrowStringArray(arr))", lambda: pd.Series(pd.arrays.ArrowStringArray(pa.LargeStringArray.from_buffers(n, pa.py_buffer(offs), pa.py_buffer(blob)))))
for dt in ["str", pd.StringDtype("pyarrow", na_value=np.nan)]:
    try:
        t(f"Series(arr, dtype={dt!r})", lambda: pd.Series(pa.LargeStringArray.from_buffers(n, pa.py_buffer(offs), pa.py_buffer(blob)), dtype=dt))
    except Exception as e: print("fail", dt, e)
    try:
        t(f"array._from_sequence? ArrowStringArray(arr, dtype={dt!r})", lambda: pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.LargeStringArray.from_buffers(n, pa.py_buffer(offs), pa.py_buffer(blob))]), dtype=pd.StringDtype("pyarrow", na_value=np.nan))))
    except Exception as e: print("fail2", e)
t("Series(list, dtype=object)", lambda: pd.Series(ids, dtype=object))
t("Series(list) inferred", lambda: pd.Series(ids))
codes = np.zeros(n, dtype=np.int8)
t("Categorical.from_codes", lambda: pd.Categorical.from_codes(codes, categories=["ok", "error", "cancelled"]))
num = np.random.rand(4, n)
t("DataFrame 4 floats + int", lambda: pd.DataFrame({"a": num[0], "b": num[1], "c": num[2], "d": num[3], "p": codes.astype(np.int64)}, copy=False))
idser = pd.Series(ids, dtype=object); cat = pd.Categorical.from_codes(codes, categories=["ok", "error", "cancelled"]); msg = pd.Series(np.full(n, "", dtype=object), dtype=object)
t("DataFrame all 8 prebuilt", lambda: pd.DataFrame({"id": idser, "status": cat, "price": num[0], "std_error": num[1], "ci_low": num[2], "ci_high": num[3], "paths": codes, "message": msg}, copy=False))
t("np.full object", lambda: np.full(n, "", dtype=object))
