"""The Python package against price-batch: input forms, bits, errors, threads, cancellation."""
import _thread
import json
import math
import os
import subprocess
import threading

import pandas as pd
import pytest

import mcprice

SOURCE = os.environ.get("MCPRICE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MARKET = os.path.join(SOURCE, "data", "sample_market.json")
BOOK = os.path.join(SOURCE, "data", "sample_portfolio.csv")
PRICE_BATCH = os.environ.get("MCPRICE_PRICE_BATCH")
PATHS = 4096


def cpu_engine(**kw):
    options = dict(backend="cpu", paths=PATHS, seed=42, threads=2)
    options.update(kw)
    return mcprice.Engine(MARKET, **options)


def same_bits(a, b):
    """Equal to the bit, NaN (an error row's empty price) equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def assert_frames_identical(a, b):
    assert list(a.columns) == list(b.columns)
    assert len(a) == len(b)
    for col in a.columns:
        for x, y in zip(a[col].tolist(), b[col].tolist()):
            assert same_bits(x, y), (col, x, y)


def vanilla_book(n, paths=None):
    rows = []
    for i in range(n):
        row = {"id": f"V{i}", "product": "vanilla", "type": "call" if i % 2 else "put", "underlying": "ABC",
               "strike": 80 + i % 40, "maturity": 0.5 + (i % 4) * 0.25}
        if paths is not None:
            row["paths"] = paths
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def engine():
    return cpu_engine()


@pytest.fixture(scope="module")
def from_file(engine):
    return engine.price(BOOK)


def test_a_file_prices_every_row_in_input_order(from_file):
    ids = [line.split(",")[0] for line in open(BOOK) if line.strip() and not line.startswith("#")][1:]
    assert from_file["id"].tolist() == ids
    assert set(from_file["status"]) <= {"ok", "error"}
    ok = from_file[from_file.status == "ok"]
    assert len(ok) >= len(from_file) - 1
    assert (ok["std_error"] > 0).all()
    assert from_file.loc[from_file.status == "error", "message"].str.len().gt(0).all()


def test_a_dataframe_and_a_list_of_dicts_give_the_file_bits(engine, from_file):
    frame = pd.read_csv(BOOK, comment="#")
    assert_frames_identical(engine.price(frame), from_file)
    assert_frames_identical(engine.price(frame.to_dict("records")), from_file)


def test_dataframe_cells_keep_their_text_quotes_and_whole_numbers(engine):
    # An id with a comma and a quote, whole numbers in a float column with gaps (pandas makes
    # 12 into 12.0), a float strike: the same rows as the CSV file with those cells.
    rows = [{"id": 'A,"1"', "product": "asian", "type": "call", "underlying": "ABC", "strike": 100.5,
             "maturity": 1, "averaging": "arithmetic", "fixings": 12},
            {"id": "B", "product": "vanilla", "type": "put", "underlying": "ABC", "strike": 95, "maturity": 0.5}]
    got = engine.price(rows)
    assert got["id"].tolist() == ['A,"1"', "B"]
    assert got["status"].tolist() == ["ok", "ok"]
    assert mcprice._table_cells(rows) == [
        ["id", "product", "type", "underlying", "strike", "maturity", "averaging", "fixings"],
        ['A,"1"', "asian", "call", "ABC", "100.5", "1", "arithmetic", "12"],
        ["B", "vanilla", "put", "ABC", "95", "0.5", "", ""]]


def test_nullable_dtypes_write_missing_cells_empty():
    frame = pd.DataFrame({"id": pd.array(["A", "B"], dtype="string"),
                          "fixings": pd.array([12, None], dtype="Int64"),
                          "strike": pd.array([100.5, None], dtype="Float64"),
                          "digital_kind": pd.array([None, "cash"], dtype="string")})
    assert mcprice._table_cells(frame) == [["id", "fixings", "strike", "digital_kind"],
                                           ["A", "12", "100.5", ""], ["B", "", "", "cash"]]


def test_numpy_cells_keep_their_values_and_bad_rows_their_positions(engine):
    import numpy as np

    frame = pd.DataFrame({"id": ["A", "B", "C"], "strike": np.array([0.1 + 0.2, 1e22, -0.0]),
                          "fixings": np.array([3, 4, 5], dtype=np.uint16), "flag": [True, np.int64(7), np.nan]})
    assert mcprice._table_cells(frame)[1:] == [["A", repr(0.1 + 0.2), "3", "True"],
                                               ["B", "10000000000000000000000", "4", "7"], ["C", "0", "5", ""]]
    bad = pd.DataFrame({"id": ["X", "Y"], "product": ["vanilla", "vanila"], "type": ["call", "call"],
                        "underlying": ["ABC", "ABC"], "strike": [100.0, 100.0], "maturity": [1.0, 1.0]})
    got = engine.price(bad)
    assert got["status"].tolist() == ["ok", "error"]
    assert got["message"].iloc[0] == ""
    assert got["message"].iloc[1].startswith("<DataFrame>:3:2: product 'vanila'"), got["message"].iloc[1]
    with pytest.raises(mcprice.InputError) as unknown:
        engine.price(pd.DataFrame({"id": ["X"], "colour": ["red"]}))
    assert (unknown.value.line, unknown.value.column) == (1, 2)


@pytest.mark.parametrize("dtype", ["string[pyarrow]", "large_string[pyarrow]"])
def test_arrow_text_columns_give_the_cells_of_the_same_text(dtype):
    pa = pytest.importorskip("pyarrow")
    texts = ["A", None, "", "é,\"x\"", "long text " * 20, "Z"]
    if dtype.startswith("large"):
        column = pd.Series(pd.arrays.ArrowExtensionArray(pa.array(texts, type=pa.large_string())))
    else:
        column = pd.Series(texts, dtype=dtype)
    frame = pd.DataFrame({"id": column, "n": range(len(texts))})
    assert mcprice._column_buffer(frame["id"]).__class__ is tuple
    want = [["" if t is None else t, str(i)] for i, t in enumerate(texts)]
    assert mcprice._table_cells(frame)[1:] == want
    assert mcprice._table_cells(frame.iloc[2:])[1:] == want[2:]  # a slice: its arrow offset


def test_results_as_arrow_text_equal_results_as_lists(engine, from_file, monkeypatch):
    pytest.importorskip("pyarrow")
    monkeypatch.setattr(mcprice, "_ARROW_TEXT", True)
    got = engine.price(BOOK)
    assert str(got["id"].dtype) == "str" or got["id"].dtype == object
    assert_frames_identical(got, from_file)
    assert got.loc[got.status == "error", "message"].str.len().gt(0).all()
    assert (got.loc[got.status == "ok", "message"] == "").all()


def test_a_market_dict_gives_the_market_file_bits(from_file):
    with open(MARKET) as f:
        market = json.load(f)
    eng = mcprice.Engine(market, backend="cpu", paths=PATHS, seed=42, threads=2)
    assert_frames_identical(eng.price(BOOK), from_file)


@pytest.mark.skipif(not PRICE_BATCH, reason="MCPRICE_PRICE_BATCH is not set (CTest sets it)")
@pytest.mark.parametrize("greeks,rng", [(False, "pseudo"), (True, "pseudo"), (False, "sobol"), (True, "sobol")])
def test_results_equal_price_batch_bit_for_bit(greeks, rng):
    args = [PRICE_BATCH, BOOK, "--market", MARKET, "--backend", "cpu", "--paths", str(PATHS), "--seed", "42",
            "--threads", "2", "--format", "json", "--quiet", "--rng", rng]
    if greeks:
        args.append("--greeks")
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode in (0, 2), done.stderr
    expected = json.loads(done.stdout)["results"]
    got = cpu_engine(greeks=greeks, rng=rng).price(BOOK)
    assert len(got) == len(expected)
    for row, want in zip(got.to_dict("records"), expected):
        for key, value in want.items():
            assert same_bits(row[key], value) or (value is None and pd.isna(row[key])), (want["id"], key)


def test_a_bad_option_raises_value_error_naming_it():
    for kw, name in [({"paths": 0}, "paths"), ({"backend": "tpu"}, "backend"), ({"rng": "halton"}, "rng"),
                     ({"greeks": "yes"}, "greeks"), ({"pool_limit": -1}, "pool_limit"), ({"seed": 1.5}, "seed"),
                     ({"graphs": "yes"}, "graphs"), ({"batch_window_us": -1}, "batch_window_us"),
                     ({"batch_window_us": 2_000_000}, "batch_window_us"),
                     ({"preload_kernels": 1}, "preload_kernels")]:
        with pytest.raises(ValueError, match=name):
            cpu_engine(**kw)


def test_unreadable_input_raises_input_error_with_its_position(engine, tmp_path):
    with pytest.raises(mcprice.InputError) as missing:
        mcprice.Engine(str(tmp_path / "nowhere.json"), backend="cpu")
    assert missing.value.file.endswith("nowhere.json")
    bad = tmp_path / "bad.csv"
    bad.write_text("id,product,type,underlying,strike,maturity\nX,european,call,ABC,100,1\nY,european,call,ABC,1")
    with pytest.raises(mcprice.InputError) as short_row:
        engine.price(str(bad))
    assert short_row.value.file.endswith("bad.csv")
    assert short_row.value.line == 3
    assert short_row.value.message


def test_a_trade_that_cannot_be_priced_is_an_error_row(engine):
    rows = vanilla_book(2, paths=2048) + [{"id": "NEG", "product": "vanilla", "type": "call", "underlying": "ABC",
                                            "strike": -5, "maturity": 1}]
    got = engine.price(rows)
    assert got["status"].tolist()[:2] == ["ok", "ok"]
    assert got["status"].iloc[2] == "error"
    assert "strike" in got["message"].iloc[2]


def test_one_engine_prices_from_several_threads_with_the_same_bits(engine):
    book = vanilla_book(40, paths=8192)
    reference = engine.price(book)
    results = [None] * 4

    def work(i):
        results[i] = engine.price(book)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert_frames_identical(r, reference)


def test_threads_batched_into_one_call_get_the_bits_they_get_alone():
    book = vanilla_book(40, paths=8192)
    reference = cpu_engine().price(book)
    batching = cpu_engine(batch_window_us=50_000)
    results = [None] * 6

    def work(i):
        # Each thread's book rotated, so that a batch's rows are not one book repeated.
        results[i] = batching.price(book[i:] + book[:i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        want = pd.concat([reference.iloc[i:], reference.iloc[:i]]).reset_index(drop=True)
        assert_frames_identical(r, want)


LONG_BOOK = vanilla_book(64, paths=4_000_000)


def test_a_progress_callable_that_returns_false_cancels_the_rest():
    calls = []

    def stop(done, total):
        calls.append((done, total))
        return False

    got = cpu_engine().price(LONG_BOOK, progress=stop)
    assert calls
    assert set(got["status"]) <= {"ok", "cancelled"}
    assert (got["status"] == "cancelled").any()


def test_ctrl_c_cancels_the_trades_not_started():
    timer = threading.Timer(0.05, _thread.interrupt_main)
    timer.start()
    got = cpu_engine().price(LONG_BOOK)
    timer.join()
    assert (got["status"] == "cancelled").any()
    assert set(got["status"]) <= {"ok", "cancelled"}


def gpu_engine():
    try:
        return mcprice.Engine(MARKET, backend="gpu", paths=PATHS, seed=42)
    except ValueError as e:
        pytest.skip(f"no GPU: {e}")


def test_the_gpu_path_prices_the_book_and_reports_memory():
    eng = gpu_engine()
    got = eng.price(BOOK)
    assert eng.backend == "gpu"
    assert (got.status == "ok").sum() >= len(got) - 1
    report = eng.memory()
    assert report["held_bytes"] >= 0 and report["allocator"] == "bucketed"
    pool = report["scratch"]
    assert pool["slow_paths"] <= pool["allocations"]
    assert pool["needed_peak_bytes"] >= pool["requested_peak_bytes"]
    assert pool["requested_peak_bytes"] <= pool["device_requested_peak_bytes"] <= pool["reserved_peak_bytes"]
    assert_frames_identical(eng.price(pd.read_csv(BOOK, comment="#")), got)


def test_a_pool_limit_bounds_the_pages_held_and_reports_its_gate():
    limit = 64 << 20
    try:
        eng = mcprice.Engine(MARKET, backend="gpu", paths=PATHS, seed=42, pool_limit=limit)
    except ValueError as e:
        pytest.skip(f"no GPU: {e}")
    got = eng.price(BOOK)
    report = eng.memory()
    gate = report["gate"]
    assert 0 < gate["budget_bytes"] <= limit and gate["in_use_bytes"] == 0
    if "pages" in report:  # where the device maps pages
        assert report["pages"]["held_peak_bytes"] <= limit
    assert_frames_identical(gpu_engine().price(BOOK), got)


def test_an_autocallable_row_carries_its_redemption_statistics(engine):
    note = {"id": "NOTE", "product": "autocallable", "underlying": "ABC", "maturity": 2,
            "observation_times": "0.5;1;1.5;2", "autocall_barrier": "1.0;0.95;0.9;0.9", "coupon": 0.03,
            "ki_barrier": 0.6, "ki_monitoring": "continuous", "paths": 4096}
    got = engine.price(vanilla_book(1, paths=2048) + [note])
    assert got["status"].tolist() == ["ok", "ok"]
    row = got.iloc[1]
    assert row["redemption_times"] == [0.5, 1, 1.5, 2]
    assert abs(sum(row["redemption_probabilities"]) - 1) < 1e-12
    assert 0.5 <= row["expected_life"] <= 2
    assert 0 < row["knock_in_probability"] < 1
    # The vanilla's row has none.
    assert not isinstance(got.iloc[0]["redemption_probabilities"], list)
