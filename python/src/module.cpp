// mcprice._mcprice: the engine behind the Python package. It reads markets and books with the
// engine's own readers (book files, or a DataFrame's columns as cells), prices with the GIL
// released, and hands results back as columns (the doubles themselves) or, with Greeks, as the
// contract's JSON (the writer's shortest round-trip doubles, so Python gets the same bits either
// way). Options, DataFrames and the public names live in the pure-Python layer
// (mcprice/__init__.py).
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

// A file-level input error becomes mcprice.InputError(message, file, line, column).
[[noreturn]] void raise_input_error(const mcprice::input_error& e)
{
  py::object const type = py::module_::import("mcprice._errors").attr("InputError");
  auto const& where = e.where();
  py::object const value = type(std::string(e.what()), where.file, where.line, where.column);
  PyErr_SetObject(type.ptr(), value.ptr());
  throw py::error_already_set();
}

template <typename Read>
auto read_or_raise(Read read)
{
  try {
    return read();
  } catch (const mcprice::input_error& e) {
    raise_input_error(e);
  }
}

mcprice::market_data market_from(const std::string& text, const std::string& source, bool is_path)
{
  return read_or_raise([&] { return is_path ? mcprice::read_market_file(source) : mcprice::parse_market(text, source); });
}

// ---- A DataFrame's columns as the book's cells (the texts a CSV file would hold) ----------
// Done here, a column at a time over the arrays' memory, because cell by cell in Python cost
// 5-13 ms for 10,000 rows (docs/benchmarks.md); the engine's table reader then applies the
// contract's rules, the same code as for the CSV file.

// A number's text: whole numbers as integers (a column of whole numbers with gaps is float in
// pandas; a count column wants "12", not "12.0"), others in their shortest round-trip form,
// NaN (a missing cell) empty. Either text reads back as the same double.
std::string number_text(double v)
{
  if (std::isnan(v)) return {};
  if (v == 0.0) return "0";
  char buf[400];
  bool const whole = std::isfinite(v) && std::floor(v) == v;
  auto const done = whole ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                          : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, done.ptr);
}

// One object cell: text as it is, None and NaN empty, Python numbers as number_text and
// integers; anything else (numpy scalars, pandas' NA) through mcprice._plain_cell first.
std::string object_text(PyObject* v, const py::handle& plain, bool converted = false)
{
  if (PyUnicode_Check(v)) {
    Py_ssize_t size = 0;
    const char* const text = PyUnicode_AsUTF8AndSize(v, &size);
    if (text == nullptr) throw py::error_already_set();
    return std::string(text, static_cast<std::size_t>(size));
  }
  if (v == Py_None) return {};
  if (PyBool_Check(v)) return v == Py_True ? "True" : "False";
  if (PyFloat_Check(v)) return number_text(PyFloat_AS_DOUBLE(v));
  if (PyLong_Check(v) || converted) return py::str(v).cast<std::string>();
  py::object const simple = plain(py::handle(v));
  return object_text(simple.ptr(), plain, true);
}

// A text column in arrow's layout (pandas' str dtype over pyarrow): the cells' bytes back to
// back, each cell's start in `offsets` (4 or 8 bytes each, from `first`), and a validity bit a
// cell where some are missing. Read where it lies: no Python string a cell.
struct arrow_cells {
  std::size_t first;
  std::size_t offset_bytes;
  const unsigned char* validity;  // null: every cell valid
  const unsigned char* offsets;
  const char* data;

  [[nodiscard]] std::size_t at(std::size_t i) const
  {
    if (offset_bytes == 4) {
      std::int32_t v;
      std::memcpy(&v, offsets + i * 4, 4);
      return static_cast<std::size_t>(v);
    }
    std::int64_t v;
    std::memcpy(&v, offsets + i * 8, 8);
    return static_cast<std::size_t>(v);
  }
  [[nodiscard]] bool valid(std::size_t i) const
  {
    return validity == nullptr || ((validity[i / 8] >> (i % 8)) & 1U) != 0;
  }
};

const void* bytes_of(const py::handle& buffer, std::size_t least, std::vector<py::buffer_info>& keep)
{
  if (buffer.is_none()) return nullptr;
  keep.push_back(py::reinterpret_borrow<py::buffer>(buffer).request());
  auto const& info = keep.back();
  if (static_cast<std::size_t>(info.size * info.itemsize) < least) {
    throw std::invalid_argument("an arrow text column's buffer is shorter than its cells");
  }
  return info.ptr;
}

// (length, first, offset bytes, validity, offsets, data), as mcprice/__init__.py hands it over.
void read_arrow_column(const py::tuple& column, std::size_t c, mcprice::portfolio_table& table)
{
  std::size_t const n = table.rows.size();
  std::vector<py::buffer_info> keep;
  keep.reserve(3);
  arrow_cells text{};
  text.first = column[1].cast<std::size_t>();
  text.offset_bytes = column[2].cast<std::size_t>();
  if (column[0].cast<std::size_t>() != n || (text.offset_bytes != 4 && text.offset_bytes != 8)) {
    throw std::invalid_argument("an arrow text column must have one cell a trade and 4- or 8-byte offsets");
  }
  text.validity = static_cast<const unsigned char*>(bytes_of(column[3], (text.first + n + 7) / 8, keep));
  text.offsets = static_cast<const unsigned char*>(bytes_of(column[4], (text.first + n + 1) * text.offset_bytes, keep));
  if (text.offsets == nullptr) throw std::invalid_argument("an arrow text column has no offsets");
  std::size_t const end = n == 0 ? 0 : text.at(text.first + n);
  text.data = static_cast<const char*>(bytes_of(column[5], end, keep));
  if (text.data == nullptr && end != 0) throw std::invalid_argument("an arrow text column has no data");
  std::size_t begin = text.at(text.first);
  for (std::size_t r = 0; r < n; ++r) {
    std::size_t const i = text.first + r;
    std::size_t const end_of_cell = text.at(i + 1);
    if (end_of_cell < begin) throw std::invalid_argument("arrow offsets go backwards");
    if (text.valid(i)) table.rows[r][c].assign(text.data + begin, end_of_cell - begin);
    begin = end_of_cell;
  }
}

// A column handed over as a buffer: int64 ('q' or 'l'), float64 ('d') or objects ('O').
void read_column(const py::buffer& column, std::size_t c, mcprice::portfolio_table& table, const py::handle& plain)
{
  py::buffer_info const info = column.request();
  std::size_t const n = table.rows.size();
  if (info.ndim != 1 || static_cast<std::size_t>(info.shape[0]) != n || info.strides[0] != info.itemsize) {
    throw std::invalid_argument("a book column must be one contiguous row of cells a trade");
  }
  char const kind = info.format.empty() ? '?' : info.format.back();
  bool const known = (kind == 'd' && info.itemsize == 8) || ((kind == 'q' || kind == 'l') && info.itemsize == 8) ||
                     (kind == 'O' && info.itemsize == sizeof(PyObject*));
  if (!known) throw std::invalid_argument("a book column's cells must be int64, float64 or objects, not '" + info.format + "'");
  for (std::size_t r = 0; r < n; ++r) {
    const char* const at = static_cast<const char*>(info.ptr) + r * static_cast<std::size_t>(info.itemsize);
    auto& cell = table.rows[r][c];
    if (kind == 'd') {
      double v;
      std::memcpy(&v, at, sizeof v);
      cell = number_text(v);
    } else if (kind == 'O') {
      PyObject* v;
      std::memcpy(&v, at, sizeof v);
      cell = object_text(v, plain);
    } else {
      std::int64_t v;
      std::memcpy(&v, at, sizeof v);
      cell = std::to_string(v);
    }
  }
}

// Each column a buffer (read_column) or an arrow text column's tuple (read_arrow_column).
mcprice::portfolio_table table_of(const std::vector<std::string>& names, const py::list& columns, std::size_t rows)
{
  if (columns.size() != names.size()) throw std::invalid_argument("a book needs one column of cells a name");
  py::handle const plain = py::module_::import("mcprice").attr("_plain_cell");
  mcprice::portfolio_table table;
  table.columns = names;
  table.rows.assign(rows, std::vector<std::string>(names.size()));
  for (std::size_t c = 0; c < names.size(); ++c) {
    py::handle const column = columns[c];
    if (py::isinstance<py::tuple>(column)) read_arrow_column(py::reinterpret_borrow<py::tuple>(column), c, table);
    else read_column(py::reinterpret_borrow<py::buffer>(column), c, table, plain);
  }
  return table;
}

// A text column of the results: a list of str, or (arrow_text) arrow's layout, the texts' bytes
// back to back and each one's start (n + 1 int64 offsets), which pandas 3 wraps as its str
// dtype without a Python string a row (0.04 ms against 0.9 ms for 10,000 ids).
template <typename Text>
py::object text_column(const std::vector<mcprice::trade_result>& results, bool arrow_text, Text text)
{
  std::size_t const n = results.size();
  if (!arrow_text) {
    py::list out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = text(results[i]);
    return out;
  }
  std::vector<std::int64_t> offsets(n + 1, 0);
  std::string data;
  for (std::size_t i = 0; i < n; ++i) {
    data += text(results[i]);
    offsets[i + 1] = static_cast<std::int64_t>(data.size());
  }
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(offsets.data()), offsets.size() * sizeof(std::int64_t)),
                        py::bytes(data));
}

// A run without Greeks as the contract's result columns: ids, statuses and messages as
// text_column, the numbers as the doubles' bytes (read by numpy.frombuffer: no numpy C API here, so the module
// works with numpy 1 and 2 alike). No text between: 10,000 rows through JSON cost 50 ms
// (docs/benchmarks.md). An error row's numbers are NaN, and `paths` is then float, as pandas
// makes of the JSON's nulls.
py::dict result_columns(const mcprice::pricing_run& run, bool arrow_text)
{
  std::size_t const n = run.results.size();
  bool all_ok = true;
  for (auto const& r : run.results) all_ok = all_ok && r.status == mcprice::trade_status::ok;
  std::vector<double> numbers(4 * n);  // price, std_error, ci_low, ci_high: a column after another
  std::vector<std::int64_t> whole_paths(all_ok ? n : 0);
  std::vector<double> float_paths(all_ok ? 0 : n);
  double const nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < n; ++i) {
    auto const& r = run.results[i];
    bool const ok = r.status == mcprice::trade_status::ok;
    double const values[] = {r.price, r.std_error, r.ci_low, r.ci_high};
    for (std::size_t k = 0; k < 4; ++k) numbers[k * n + i] = ok ? values[k] : nan;
    if (all_ok) whole_paths[i] = r.paths;
    else float_paths[i] = ok ? static_cast<double>(r.paths) : nan;
  }
  auto bytes_of = [](const auto& v) {
    return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v.front()));
  };
  py::dict columns;
  columns["id"] = text_column(run.results, arrow_text, [](const mcprice::trade_result& r) -> const std::string& { return r.id; });
  columns["rows"] = n;
  columns["status"] =
      text_column(run.results, arrow_text, [](const mcprice::trade_result& r) { return mcprice::status_name(r.status); });
  columns["numbers"] = numbers.empty() ? py::bytes() : bytes_of(numbers);
  columns["paths"] = n == 0 ? py::bytes() : all_ok ? bytes_of(whole_paths) : bytes_of(float_paths);
  columns["paths_dtype"] = all_ok ? "int64" : "float64";
  columns["message"] =
      text_column(run.results, arrow_text, [](const mcprice::trade_result& r) -> const std::string& { return r.message; });
  return columns;
}

constexpr std::chrono::steady_clock::rep every_20ms()
{
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::milliseconds(20)).count();
}

class python_engine {
 public:
  python_engine(mcprice::market_data market, const mcprice::engine_options& options)
      : engine_(std::move(market), options)
  {
  }

  // Prices a book file and returns the results: columns (result_columns), or with Greeks or
  // autocallables the contract's JSON text.
  py::object price(const std::string& path, const py::object& progress, bool arrow_text)
  {
    return price_book(read_or_raise([&] { return mcprice::read_portfolio_file(path); }), progress, arrow_text);
  }

  // Prices a book given as columns (names, and a buffer of rows cells each), as price does.
  py::object price_table(const std::vector<std::string>& names, const py::list& columns,
                         std::size_t rows, const std::string& source, const py::object& progress, bool arrow_text)
  {
    return price_book(read_or_raise([&] { return mcprice::read_portfolio_table(table_of(names, columns, rows), source); }),
                      progress, arrow_text);
  }

  // progress(done, total) is called with the GIL held; it returns False to cancel the trades
  // not yet started. Ctrl-C (a KeyboardInterrupt pending) cancels the same way, as SIGINT does
  // in price-batch: the results come back, with those trades' status cancelled.
  py::object price_book(const mcprice::portfolio& book, const py::object& progress, bool arrow_text)
  {
    std::atomic<bool> cancel{false};
    // The GIL at most every 20 ms (and for the last call): a job's end must not queue behind
    // Python, and a progress bar or Ctrl-C needs no more.
    using clock = std::chrono::steady_clock;
    std::atomic<clock::rep> next_call{0};
    auto const on_progress = [&](std::int64_t done, std::int64_t total) {
      clock::rep const now = clock::now().time_since_epoch().count();
      clock::rep due = next_call.load();
      if (done < total && (now < due || !next_call.compare_exchange_strong(due, now + every_20ms()))) return;
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        PyErr_Clear();
        cancel = true;
        return;
      }
      if (!progress.is_none() && !progress(done, total).cast<bool>()) cancel = true;
    };
    std::optional<mcprice::pricing_run> run;
    std::ostringstream out;
    bool json = false;  // rows with Greeks or an autocallable's redemption statistics: the JSON rows
    {
      py::gil_scoped_release released;
      run = engine_.price(book, on_progress, &cancel);
      json = run->summary.greeks || std::any_of(run->results.begin(), run->results.end(),
                                                [](const auto& r) { return r.redemption.has_value(); });
      if (json) mcprice::write_results_json(out, *run);
    }
    if (!json) return result_columns(*run, arrow_text);
    return py::str(out.str());
  }

  // The C++ call alone, for apps/bench/python_overhead.py: read the book file and price it, with
  // the GIL released; its wall seconds.
  double cpp_call_seconds(const std::string& path)
  {
    py::gil_scoped_release released;
    auto const start = std::chrono::steady_clock::now();
    mcprice::pricing_run const run = engine_.price(mcprice::read_portfolio_file(path));
    (void)run;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  py::object memory() const
  {
    auto const report = engine_.memory();
    if (!report) return py::none();
    py::dict d;
    d["allocator"] = report->allocator;
    d["held_bytes"] = report->held_bytes;  // every byte of scratch held from the driver
    d["held_peak_bytes"] = report->held_peak;
    d["market_bytes"] = report->market_bytes;
    d["job_retries"] = report->job_retries;
    if (report->scratch) {
      auto const& p = *report->scratch;
      py::dict pool;
      pool["requested_bytes"] = p.requested;
      pool["requested_peak_bytes"] = p.requested_peak;
      pool["allocated_bytes"] = p.allocated;
      pool["allocated_peak_bytes"] = p.allocated_peak;
      pool["reserved_bytes"] = p.reserved;
      pool["reserved_peak_bytes"] = p.reserved_peak;
      pool["allocations"] = p.allocations;
      pool["upstream_grows"] = p.upstream_grows;
      pool["event_waits"] = p.event_waits;
      pool["failures"] = p.failures;
      pool["allocate_p50_us"] = p.latency_p50_us;
      pool["allocate_p99_us"] = p.latency_p99_us;
      pool["needed_peak_bytes"] = p.needed_peak;
      pool["device_requested_peak_bytes"] = p.device_requested_peak;  // until each free passes
      pool["slow_paths"] = p.slow_paths;
      pool["grown_ahead"] = p.grown_ahead;
      pool["slow_path_p99_us"] = p.slow_latency_p99_us;
      d["scratch"] = pool;
    }
    if (report->pages) {
      auto const& p = *report->pages;
      py::dict pages;
      pages["page_bytes"] = p.page_size;
      pages["held_bytes"] = p.held;
      pages["held_peak_bytes"] = p.held_peak;
      pages["mapped_bytes"] = p.mapped;
      pages["idle_bytes"] = p.idle;
      pages["spare_bytes"] = p.spare;
      pages["pending_frees"] = p.pending_frees;
      pages["pending_waits"] = p.pending_waits;  // at the limit: the host waited for a free
      d["pages"] = pages;
    }
    if (report->gate) {
      auto const& g = *report->gate;
      py::dict gate;
      gate["budget_bytes"] = g.budget;
      gate["in_use_bytes"] = g.in_use;
      gate["peak_bytes"] = g.peak;
      gate["waits"] = g.waits;
      gate["wait_s"] = g.wait_s;
      gate["alone_waits"] = g.alone_waits;  // jobs that came again alone
      d["gate"] = gate;
    }
    if (report->graphs) {
      auto const& g = *report->graphs;
      py::dict graphs;
      graphs["entries"] = g.entries;
      graphs["bytes"] = g.bytes;
      graphs["peak_bytes"] = g.peak_bytes;
      graphs["max_entries"] = g.max_entries;
      graphs["max_bytes"] = g.max_bytes;
      graphs["replays"] = g.replays;
      graphs["captures"] = g.captures;
      graphs["evictions"] = g.evictions;
      graphs["refusals"] = g.refusals;
      graphs["failures"] = g.failures;
      graphs["pool_reserved_bytes"] = g.pool_reserved;
      graphs["pool_reserved_high_bytes"] = g.pool_reserved_high;
      d["graphs"] = graphs;
    }
    return d;
  }

  std::string backend() const { return engine_.backend() == mcprice::backend_kind::gpu ? "gpu" : "cpu"; }
  std::string device_name() const { return engine_.device_name(); }
  std::vector<std::string> notices() const { return engine_.notices(); }

 private:
  mcprice::engine engine_;
};

mcprice::engine_options options_from(const py::dict& o)
{
  mcprice::engine_options e;
  e.paths = o["paths"].cast<std::int64_t>();
  e.steps = o["steps"].cast<std::int64_t>();
  e.seed = o["seed"].cast<std::uint64_t>();
  e.antithetic = o["antithetic"].cast<bool>();
  e.greeks = o["greeks"].cast<bool>();
  auto const backend = o["backend"].cast<std::string>();
  e.backend = backend == "gpu" ? mcprice::backend_choice::gpu
              : backend == "cpu" ? mcprice::backend_choice::cpu
                                 : mcprice::backend_choice::automatic;
  e.precision = o["precision"].cast<std::string>() == "double" ? mcprice::path_precision::float64
                                                                : mcprice::path_precision::float32;
  e.streams = o["streams"].cast<int>();
  e.threads = o["threads"].cast<unsigned>();
  e.job_cap_bytes = o["job_cap"].cast<std::size_t>();
  e.pool_limit_bytes = o["pool_limit"].cast<std::size_t>();
  e.rng = o["rng"].cast<std::string>() == "sobol" ? mcprice::rng_kind::sobol : mcprice::rng_kind::pseudo;
  e.rqmc_replicates = o["rqmc_replicates"].cast<int>();
  auto const graphs = o["graphs"].cast<std::string>();
  e.graphs = graphs == "on"    ? mcprice::graph_mode::on
             : graphs == "off" ? mcprice::graph_mode::off
                               : mcprice::graph_mode::automatic;
  e.batch_window_us = o["batch_window_us"].cast<std::int64_t>();
  e.preload_kernels = o["preload_kernels"].cast<bool>();
  return e;
}

}  // namespace

PYBIND11_MODULE(_mcprice, m)
{
  m.doc() = "mcprice's engine (use the mcprice package: mcprice.Engine)";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mcprice::configuration_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  // The cells a DataFrame's columns give the book reader (for the tests).
  m.def("_table_cells", [](const std::vector<std::string>& names, const py::list& columns, std::size_t rows) {
    return table_of(names, columns, rows).rows;
  });
  py::class_<python_engine>(m, "_Engine")
      .def(py::init([](const std::string& text, const std::string& source, bool is_path, const py::dict& options) {
             auto const o = options_from(options);
             auto market = market_from(text, source, is_path);  // input errors need the GIL
             py::gil_scoped_release released;                    // a GPU engine's start-up takes a while
             return std::make_unique<python_engine>(std::move(market), o);
           }),
           py::arg("market_text"), py::arg("market_source"), py::arg("market_is_path"), py::arg("options"))
      .def("price", &python_engine::price, py::arg("path"), py::arg("progress") = py::none(),
           py::arg("arrow_text") = false)
      .def("price_table", &python_engine::price_table, py::arg("names"), py::arg("columns"), py::arg("rows"),
           py::arg("source"), py::arg("progress") = py::none(), py::arg("arrow_text") = false)
      .def("memory", &python_engine::memory)
      .def("_cpp_call_seconds", &python_engine::cpp_call_seconds, py::arg("path"))
      .def_property_readonly("backend", &python_engine::backend)
      .def_property_readonly("device_name", &python_engine::device_name)
      .def_property_readonly("notices", &python_engine::notices);
}
