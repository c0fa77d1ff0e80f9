"""mcprice: Monte Carlo option pricing on NVIDIA GPUs (and the CPU), from Python.

    import mcprice
    eng = mcprice.Engine("data/sample_market.json", backend="auto", paths=1_000_000, seed=42)
    df = eng.price("data/sample_portfolio.csv")   # or a pandas DataFrame, or a list of dicts
    df.loc[df.status == "ok", ["id", "price", "std_error"]]

The engine's own readers parse the market and the book (the formats of the I/O contract), so a
file, a DataFrame and a list of dicts with the same cells give the same bits as price-batch
with the same settings.
"""
import json
import os

from ._errors import InputError
from ._mcprice import _Engine

__all__ = ["Engine", "InputError"]

_BACKENDS = ("auto", "gpu", "cpu")
_RNGS = ("pseudo", "sobol")
_PRECISIONS = ("single", "double")
_GRAPHS = ("auto", "on", "off")


def _whole(name, value, least):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, not {value!r}")
    return value


def _choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, not {value!r}")
    return value


def _options(backend, paths, seed, greeks, rng, streams, job_cap, pool_limit, steps, antithetic, precision,
             threads, rqmc_replicates=32, graphs="auto", batch_window_us=0, preload_kernels=True):
    _choice("backend", backend, _BACKENDS)
    _choice("graphs", graphs, _GRAPHS)
    _choice("rng", rng, _RNGS)
    _choice("precision", precision, _PRECISIONS)
    if not isinstance(greeks, bool):
        raise ValueError(f"greeks must be True or False, not {greeks!r}")
    if not isinstance(antithetic, bool):
        raise ValueError(f"antithetic must be True or False, not {antithetic!r}")
    if not isinstance(preload_kernels, bool):
        raise ValueError(f"preload_kernels must be True or False, not {preload_kernels!r}")
    if _whole("batch_window_us", batch_window_us, 0) > 1_000_000:
        raise ValueError(f"batch_window_us must be at most 1000000 (1 s), not {batch_window_us!r}")
    return {
        "backend": backend,
        "paths": _whole("paths", paths, 1),
        "seed": _whole("seed", seed, 0),
        "greeks": greeks,
        "steps": _whole("steps", steps, 1),
        "antithetic": antithetic,
        "precision": precision,
        "rng": rng,
        "rqmc_replicates": _whole("rqmc_replicates", rqmc_replicates, 2),
        "streams": 0 if streams is None else _whole("streams", streams, 1),
        "threads": 0 if threads is None else _whole("threads", threads, 1),
        "job_cap": 0 if job_cap is None else _whole("job_cap", job_cap, 1),
        "pool_limit": 0 if pool_limit is None else _whole("pool_limit", pool_limit, 1),
        "graphs": graphs,
        "batch_window_us": batch_window_us,
        "preload_kernels": preload_kernels,
    }


def _plain_cell(value):
    """A cell that is neither text, None nor a Python number (numpy scalars, pandas' NA, NaT):
    None where it is missing, else a plain Python value (the module writes its text)."""
    import pandas as pd

    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):  # a list or an array in a cell: not a missing value
        pass
    return value.item() if hasattr(value, "item") else str(value)


def _arrow_text(column):
    """An arrow-backed text column (pandas' str dtype over pyarrow, pandas 3's default) as its
    arrow buffers, for the module to read in place: (length, first, offset bytes, validity,
    offsets, data). None for any other column."""
    dtype = column.dtype
    if getattr(dtype, "storage", None) not in ("pyarrow", "pyarrow_numpy") and not hasattr(dtype, "pyarrow_dtype"):
        return None
    import pyarrow as pa

    data = column.array.__arrow_array__()
    if isinstance(data, pa.ChunkedArray):
        data = data.combine_chunks()
    if pa.types.is_string(data.type):
        width = 4
    elif pa.types.is_large_string(data.type):
        width = 8
    else:
        return None
    validity, offsets, text = data.buffers()
    return (len(data), data.offset, width, None if validity is None or data.null_count == 0 else memoryview(validity),
            memoryview(offsets), None if text is None else memoryview(text))


def _column_buffer(column):
    """One column's cells as the module reads them without a Python object a cell where it
    can: numpy integers as int64, floats as float64, arrow text in place (_arrow_text), and
    everything else (text in objects, nullable dtypes, booleans) as objects."""
    import numpy as np

    dtype = column.dtype
    if isinstance(dtype, np.dtype) and (dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8)):
        return memoryview(np.ascontiguousarray(column.to_numpy(), dtype=np.int64))
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        return memoryview(np.ascontiguousarray(column.to_numpy(), dtype=np.float64))
    arrow = _arrow_text(column)
    if arrow is not None:
        return arrow
    return memoryview(np.ascontiguousarray(column.to_numpy(dtype=object)))


def _book_columns(trades):
    """A DataFrame or a list of dicts as (column names, one buffer a column, rows) for the
    engine's table reader, which applies the contract's rules as it does to the CSV file."""
    import pandas as pd

    frame = trades if isinstance(trades, pd.DataFrame) else pd.DataFrame(list(trades))
    names = [str(name) for name in frame.columns]
    return names, [_column_buffer(frame.iloc[:, i]) for i in range(len(names))], len(frame)


def _table_cells(trades):
    """The cells the engine reads for a DataFrame or a list of dicts: a list of rows of texts."""
    from ._mcprice import _table_cells as cells

    names, columns, rows = _book_columns(trades)
    return [names] + cells(names, columns, rows)


def _arrow_text_wanted():
    """Whether results' text columns come as arrow buffers: where pandas makes text its
    pyarrow-backed str dtype (pandas 3's default), which wraps them without a Python string a
    row. Elsewhere they come as lists of str, in object columns."""
    global _ARROW_TEXT
    if _ARROW_TEXT is None:
        import pandas as pd

        try:
            import pyarrow  # noqa: F401

            _ARROW_TEXT = bool(pd.get_option("future.infer_string"))
        except (ImportError, KeyError):  # pandas before 2.1 has no such option (OptionError is a KeyError)
            _ARROW_TEXT = False
    return _ARROW_TEXT


_ARROW_TEXT = None


def _text_series(column, n):
    import pandas as pd

    if isinstance(column, tuple):
        import pyarrow as pa

        offsets, data = column
        return pd.Series(pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data)), dtype="str")
    return pd.Series(column, dtype=object)


def _results_frame(results):
    """The engine's results as a DataFrame: columns as they come (a run without Greeks or
    autocallables), or the contract's JSON rows (with Greeks: per-asset lists and cross gammas;
    autocallables: redemption_times, redemption_probabilities, expected_life and
    knock_in_probability, missing (NaN) on the other rows)."""
    import numpy as np
    import pandas as pd

    if not isinstance(results, dict):
        return pd.DataFrame(json.loads(results)["results"])
    n = results["rows"]
    numbers = np.frombuffer(results["numbers"], dtype=np.float64).reshape(4, n)
    return pd.DataFrame({"id": _text_series(results["id"], n), "status": _text_series(results["status"], n),
                         "price": numbers[0],
                         "std_error": numbers[1], "ci_low": numbers[2], "ci_high": numbers[3],
                         "paths": np.frombuffer(results["paths"], dtype=results["paths_dtype"]),
                         "message": _text_series(results["message"], n)}, copy=False)


class Engine:
    """A pricing engine over one market, with the same settings as price-batch's options.

    market: a path to the market JSON, or the market as a dict of the JSON's shape.
    backend: "auto" (the GPU when there is one), "gpu" or "cpu".
    paths, seed, steps, antithetic, precision ("single" | "double"), greeks: the numbers, as
    price-batch's --paths, --seed, --steps, --antithetic, --precision, --greeks.
    rng: "pseudo" (Philox) or "sobol" (Owen-scrambled Sobol points with a Brownian bridge;
        rqmc_replicates independent scramblings give the standard error).
    streams, threads, job_cap, pool_limit (bytes): the resources; None = the engine's choice.
    graphs: "auto" | "on" | "off", as price-batch's --graphs (GPU requests replayed from captured
        CUDA graphs; the same results either way).
    batch_window_us: as price-batch's --batch-window-us (0, the default: off; at most 1,000,000):
        calls from several threads that arrive while the engine is busy are priced as one book,
        each getting its own rows with the same bits. A batched call's progress counts the
        batch's samples; Ctrl-C or a progress callable's False returns it at once, cancelled.
    preload_kernels: on the GPU, load every kernel when the engine is built (True, the default:
        about 0.6 s). False: each loads at its first launch (the engine starts in milliseconds),
        but a first launch beside running kernels waits for them, and so may a stop.

    A bad option raises ValueError naming it; a market that cannot be read raises InputError.
    One engine may price from several Python threads at once (the GIL is released while it
    prices).
    """

    def __init__(self, market, backend="auto", paths=1_000_000, seed=42, greeks=False, rng="pseudo",
                 streams=None, job_cap=None, pool_limit=None, steps=252, antithetic=True, precision="single",
                 threads=None, rqmc_replicates=32, graphs="auto", batch_window_us=0, preload_kernels=True):
        options = _options(backend, paths, seed, greeks, rng, streams, job_cap, pool_limit, steps, antithetic,
                           precision, threads, rqmc_replicates, graphs, batch_window_us, preload_kernels)
        if isinstance(market, dict):
            self._engine = _Engine(json.dumps(market), "<market dict>", False, options)
        elif isinstance(market, (str, os.PathLike)):
            self._engine = _Engine("", os.fspath(market), True, options)
        else:
            raise ValueError(f"market must be a path or a dict, not {type(market).__name__}")
        self.options = options

    def price(self, trades, progress=False):
        """Prices a book: a path to a CSV file, a pandas DataFrame or a list of dicts with the
        contract's columns. Returns a DataFrame with the contract's result columns, one row per
        trade in input order; a trade that cannot be priced is a row with status "error" and a
        message. A book that cannot be read raises InputError.

        progress: True for a progress bar (tqdm, when installed), or a callable(done, total)
        that may return False to cancel. Ctrl-C cancels the same way, as SIGINT does in
        price-batch: the trades not yet started come back with status "cancelled".
        """
        callback = _progress_callback(progress)
        try:
            if isinstance(trades, (str, os.PathLike)):
                results = self._engine.price(os.fspath(trades), callback, _arrow_text_wanted())
            else:
                names, columns, rows = _book_columns(trades)
                results = self._engine.price_table(names, columns, rows, "<DataFrame>", callback, _arrow_text_wanted())
        finally:
            if hasattr(callback, "close"):
                callback.close()
        return _results_frame(results)

    def memory(self):
        """The GPU scratch memory report as a dict (None on the CPU backend)."""
        return self._engine.memory()

    @property
    def backend(self):
        """"gpu" or "cpu": where this engine prices."""
        return self._engine.backend

    @property
    def device_name(self):
        return self._engine.device_name

    @property
    def notices(self):
        """What the engine has to tell, e.g. that "auto" fell back to the CPU."""
        return list(self._engine.notices)


class _Bar:
    def __init__(self):
        from tqdm import tqdm

        self._bar = tqdm(unit="sample", unit_scale=True)

    def __call__(self, done, total):
        self._bar.total = total
        self._bar.n = done
        self._bar.refresh()
        return True

    def close(self):
        self._bar.close()


def _progress_callback(progress):
    if progress is True:
        try:
            return _Bar()
        except ImportError:
            return None
    if progress is False or progress is None:
        return None
    if callable(progress):
        return progress
    raise ValueError(f"progress must be True, False or a callable(done, total), not {progress!r}")
