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


def _whole(name, value, least):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, not {value!r}")
    return value


def _choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, not {value!r}")
    return value


def _options(backend, paths, seed, greeks, rng, streams, job_cap, pool_limit, steps, antithetic, precision,
             threads, rqmc_replicates=32):
    _choice("backend", backend, _BACKENDS)
    _choice("rng", rng, _RNGS)
    _choice("precision", precision, _PRECISIONS)
    if not isinstance(greeks, bool):
        raise ValueError(f"greeks must be True or False, not {greeks!r}")
    if not isinstance(antithetic, bool):
        raise ValueError(f"antithetic must be True or False, not {antithetic!r}")
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
    }


def _cell(value):
    """One cell of the CSV text: empty for a missing value (None, NaN, pandas' NA), whole
    numbers as integers (a column of whole numbers with gaps is float in pandas; the reader
    wants "12", not "12.0"), other floats in their shortest round-trip form, text quoted where
    the CSV needs it."""
    if isinstance(value, str):
        if any(c in value for c in ',"\r\n'):
            return '"' + value.replace('"', '""') + '"'
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ""
        return str(int(value)) if value.is_integer() else repr(value)
    import pandas as pd

    if value is None or pd.isna(value):
        return ""
    return _cell(value.item() if hasattr(value, "item") else str(value))


def _column_cells(column):
    """A column's cells (_cell's), with the common cases done a column at a time: numpy's
    integers and floats, and text that needs no quotes."""
    import numpy as np

    values = column.tolist()
    plain_numpy = isinstance(column.dtype, np.dtype)
    if plain_numpy and column.dtype.kind in "iu":
        return list(map(str, values))
    if plain_numpy and column.dtype.kind == "f":
        return ["" if v != v else str(int(v)) if v.is_integer() else repr(v) for v in values]
    if all(type(v) is str for v in values) and not any(c in "".join(values) for c in ',"\r\n'):
        return values
    return [_cell(v) for v in values]


def _book_text(trades):
    """A DataFrame or a list of dicts as the CSV text the engine's book reader takes, built a
    column at a time (pandas' to_csv took 19 ms for 10,000 rows)."""
    import pandas as pd

    frame = trades if isinstance(trades, pd.DataFrame) else pd.DataFrame(list(trades))
    columns = [_column_cells(frame[name]) for name in frame.columns]
    header = ",".join(_cell(str(name)) for name in frame.columns)
    return header + "\n" + "\n".join(map(",".join, zip(*columns))) + "\n"


def _results_frame(results):
    """The engine's results as a DataFrame: columns as they come (a run without Greeks or
    autocallables), or the contract's JSON rows (with Greeks: per-asset lists and cross gammas;
    autocallables: redemption_times, redemption_probabilities, expected_life and
    knock_in_probability, missing (NaN) on the other rows)."""
    import pandas as pd

    if isinstance(results, dict):
        import numpy as np

        n = len(results["id"])
        numbers = np.frombuffer(results["numbers"], dtype=np.float64).reshape(4, n)
        return pd.DataFrame({"id": results["id"], "status": results["status"], "price": numbers[0],
                             "std_error": numbers[1], "ci_low": numbers[2], "ci_high": numbers[3],
                             "paths": np.frombuffer(results["paths"], dtype=results["paths_dtype"]),
                             "message": results["message"]})
    return pd.DataFrame(json.loads(results)["results"])


class Engine:
    """A pricing engine over one market, with the same settings as price-batch's options.

    market: a path to the market JSON, or the market as a dict of the JSON's shape.
    backend: "auto" (the GPU when there is one), "gpu" or "cpu".
    paths, seed, steps, antithetic, precision ("single" | "double"), greeks: the numbers, as
    price-batch's --paths, --seed, --steps, --antithetic, --precision, --greeks.
    rng: "pseudo" (Philox) or "sobol" (Owen-scrambled Sobol points with a Brownian bridge;
        rqmc_replicates independent scramblings give the standard error).
    streams, threads, job_cap, pool_limit (bytes): the resources; None = the engine's choice.

    A bad option raises ValueError naming it; a market that cannot be read raises InputError.
    One engine may price from several Python threads at once (the GIL is released while it
    prices).
    """

    def __init__(self, market, backend="auto", paths=1_000_000, seed=42, greeks=False, rng="pseudo",
                 streams=None, job_cap=None, pool_limit=None, steps=252, antithetic=True, precision="single",
                 threads=None, rqmc_replicates=32):
        options = _options(backend, paths, seed, greeks, rng, streams, job_cap, pool_limit, steps, antithetic,
                           precision, threads, rqmc_replicates)
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
                results = self._engine.price("", os.fspath(trades), True, callback)
            else:
                results = self._engine.price(_book_text(trades), "<DataFrame>", False, callback)
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
