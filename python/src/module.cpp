// mcprice._mcprice: the engine behind the Python package. It reads markets and books with the
// engine's own readers (files or text), prices with the GIL released, and hands results back as
// columns (the doubles themselves) or, with Greeks, as the contract's JSON (the writer's
// shortest round-trip doubles, so Python gets the same bits either way). Options, DataFrames and
// the public names live in the pure-Python layer (mcprice/__init__.py).
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "mcprice/results_writer.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
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

// A run without Greeks as the contract's result columns: the texts as lists, the numbers as the
// doubles' bytes (read by numpy.frombuffer in mcprice/__init__.py: no numpy C API here, so the
// module works with numpy 1 and 2 alike), with no text between (10,000 rows through JSON cost
// 50 ms, docs/benchmarks.md). An error row's numbers are NaN, and `paths` is then float, as
// pandas makes of the JSON's nulls.
py::dict result_columns(const mcprice::pricing_run& run)
{
  std::size_t const n = run.results.size();
  bool all_ok = true;
  for (auto const& r : run.results) all_ok = all_ok && r.status == mcprice::trade_status::ok;
  py::list id(n);
  py::list status(n);
  py::list message(n);
  std::vector<double> numbers(4 * n);  // price, std_error, ci_low, ci_high: a column after another
  std::vector<std::int64_t> whole_paths(all_ok ? n : 0);
  std::vector<double> float_paths(all_ok ? 0 : n);
  double const nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < n; ++i) {
    auto const& r = run.results[i];
    bool const ok = r.status == mcprice::trade_status::ok;
    id[i] = r.id;
    status[i] = mcprice::status_name(r.status);
    message[i] = r.message;
    double const values[] = {r.price, r.std_error, r.ci_low, r.ci_high};
    for (std::size_t k = 0; k < 4; ++k) numbers[k * n + i] = ok ? values[k] : nan;
    if (all_ok) whole_paths[i] = r.paths;
    else float_paths[i] = ok ? static_cast<double>(r.paths) : nan;
  }
  auto bytes_of = [](const auto& v) {
    return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v.front()));
  };
  py::dict columns;
  columns["id"] = id;
  columns["status"] = status;
  columns["numbers"] = numbers.empty() ? py::bytes() : bytes_of(numbers);
  columns["paths"] = n == 0 ? py::bytes() : all_ok ? bytes_of(whole_paths) : bytes_of(float_paths);
  columns["paths_dtype"] = all_ok ? "int64" : "float64";
  columns["message"] = message;
  return columns;
}

class python_engine {
 public:
  python_engine(mcprice::market_data market, const mcprice::engine_options& options)
      : engine_(std::move(market), options)
  {
  }

  // Prices a book (a file, or CSV text named `source`) and returns the results: columns
  // (result_columns), or with Greeks or autocallables the contract's JSON text.
  // progress(done, total) is called with the GIL held; it returns False to cancel the trades
  // not yet started. Ctrl-C (a KeyboardInterrupt pending) cancels the same way, as SIGINT does
  // in price-batch: the results come back, with those trades' status cancelled.
  py::object price(const std::string& text, const std::string& source, bool is_path, const py::object& progress)
  {
    mcprice::portfolio const book =
        read_or_raise([&] { return is_path ? mcprice::read_portfolio_file(source) : mcprice::parse_portfolio(text, source); });
    std::atomic<bool> cancel{false};
    auto const on_progress = [&](std::int64_t done, std::int64_t total) {
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
    if (!json) return result_columns(*run);
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
      d["scratch"] = pool;
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
  py::class_<python_engine>(m, "_Engine")
      .def(py::init([](const std::string& text, const std::string& source, bool is_path, const py::dict& options) {
             auto const o = options_from(options);
             auto market = market_from(text, source, is_path);  // input errors need the GIL
             py::gil_scoped_release released;                    // a GPU engine's start-up takes a while
             return std::make_unique<python_engine>(std::move(market), o);
           }),
           py::arg("market_text"), py::arg("market_source"), py::arg("market_is_path"), py::arg("options"))
      .def("price", &python_engine::price, py::arg("text"), py::arg("source"), py::arg("is_path"),
           py::arg("progress") = py::none())
      .def("memory", &python_engine::memory)
      .def("_cpp_call_seconds", &python_engine::cpp_call_seconds, py::arg("path"))
      .def_property_readonly("backend", &python_engine::backend)
      .def_property_readonly("device_name", &python_engine::device_name)
      .def_property_readonly("notices", &python_engine::notices);
}
