// CUDA graphs (engine_options::graphs, docs/graphs.md): a request replayed from a captured
// graph gives the eager path's bits for every family, route, precision and setting that the
// determinism tests vary; the cache stays within its limits; a trim between replays leaves no
// graph holding freed memory; a stop reaches into a replayed graph; many threads replay at once.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "pricing_cases.hpp"
#include "result_bits.hpp"
#include "stop_timing.hpp"
#include "trade_on.hpp"

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// The repository's data folder: where this build found it, else the working directory's (the
// suite run from the repository root on another machine).
std::string data_file(const std::string& name)
{
  std::string const built = std::string(MCPRICE_DATA_DIR) + "/" + name;
  return std::ifstream(built).good() ? built : "data/" + name;
}

market_data sample_market() { return read_market_file(data_file("sample_market.json")); }
portfolio sample_book() { return read_portfolio_file(data_file("sample_portfolio.csv")); }

engine_options gpu_options(graph_mode g, std::int64_t paths)
{
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = paths;
  o.graphs = g;
  return o;
}

// Prices and Greeks, bit for bit.
bool same_greek_bits(const pricing_run& a, const pricing_run& b)
{
  if (!same_result_bits(a, b)) return false;
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (!mcprice::testing::same_greek_bits(a.results[i], b.results[i])) return false;
  }
  return true;
}

graph_cache_statistics graphs_of(const engine& e)
{
  auto const m = e.memory();
  REQUIRE(m.has_value());
  REQUIRE(m->graphs.has_value());
  return *m->graphs;
}

}  // namespace

TEST_CASE(
    "GPU graphs: the sample book's bits with graphs on and off, on both routes, in float and double, with "
    "Greeks in float; replays hit the cache",
    "[gpu]")
{
  auto const m = sample_market();
  auto const book = sample_book();
  for (kernel_route const route : {kernel_route::fused, kernel_route::two_phase}) {
    for (bool const greeks : {false, true}) {
      if (greeks && route == kernel_route::two_phase) continue;  // Greeks are the fused route's
      for (path_precision const p : {path_precision::float32, path_precision::float64}) {
        // Double Greeks are the host's (docs/precision.md): no request of theirs reaches a graph.
        if (greeks && p == path_precision::float64) continue;
        INFO("route " << static_cast<int>(route) << ", greeks " << greeks << ", double "
                      << (p == path_precision::float64));
        auto o = gpu_options(graph_mode::off, 50'001);
        o.route = route;
        o.greeks = greeks;
        o.precision = p;
        auto const eager = engine(m, o).price(book);
        o.graphs = graph_mode::on;
        engine const graphed(m, o);
        // A shape's first request runs eagerly, its second captures, its third replays.
        for (int i = 0; i < 3; ++i) CHECK(same_greek_bits(eager, graphed.price(book)));
        auto const g = graphs_of(graphed);
        CHECK(g.failures == 0);
        CHECK(g.captures > 0);
        CHECK(g.replays >= g.captures);
        CHECK(g.in_use == 0);
        CHECK(g.bytes <= g.max_bytes);
      }
    }
  }
}

TEST_CASE("GPU graphs: small requests of many shapes, streams, grids and job caps keep the eager bits", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  portfolio small;
  small.trades = {book.trades[0], book.trades[1], autocallable_on("FLAT")};  // with outcome counters
  for (int const streams : {1, 4}) {
    for (int const grid : {0, 7}) {
      for (std::size_t const cap : {std::size_t{0}, std::size_t{1} << 20}) {
        auto o = gpu_options(graph_mode::off, 16'384);
        o.streams = streams;
        o.grid_blocks = grid;
        o.job_cap_bytes = cap;
        engine const eager(m, o);
        o.graphs = graph_mode::on;
        engine const graphed(m, o);
        for (const portfolio& b : {small, book}) {
          auto const want = eager.price(b);
          for (int i = 0; i < 3; ++i) CHECK(same_result_bits(want, graphed.price(b)));
        }
        CHECK(graphs_of(graphed).failures == 0);
      }
    }
  }
}

TEST_CASE("GPU graphs: the cache keeps within its count and bytes, evicting the least recently used", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  auto o = gpu_options(graph_mode::on, 16'384);
  o.graph_cache_entries = 2;
  engine const graphed(m, o);
  o.graphs = graph_mode::off;
  engine const eager(m, o);
  // Each trade alone is a shape of its own: more shapes than the cache holds (the first round
  // runs eagerly, the others capture).
  for (int round = 0; round < 3; ++round) {
    for (std::size_t k = 0; k < book.trades.size(); ++k) {
      portfolio one;
      one.trades = {book.trades[k]};
      one.trades[0].paths = 16'384 * static_cast<std::int64_t>(k + 1);  // blocks of its own: a shape of its own
      CHECK(same_result_bits(eager.price(one), graphed.price(one)));
      auto const g = graphs_of(graphed);
      CHECK(g.entries <= 2);
    }
  }
  auto const g = graphs_of(graphed);
  CHECK(g.evictions > 0);
  CHECK(g.peak_bytes <= g.max_bytes);
  // A byte limit below any request's graph: every request runs eagerly, with the same bits.
  o.graphs = graph_mode::on;
  o.graph_cache_bytes = 1024;
  engine const tiny(m, o);
  for (int i = 0; i < 2; ++i) CHECK(same_result_bits(eager.price(book), tiny.price(book)));
  CHECK(graphs_of(tiny).entries == 0);
  CHECK(graphs_of(tiny).refusals > 0);
}

TEST_CASE(
    "GPU graphs: a trim between replays destroys idle graphs and frees their memory; the next request "
    "captures again with the same bits",
    "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  engine const graphed(m, gpu_options(graph_mode::on, 65'536));
  auto const first = graphed.price(book);
  CHECK(same_result_bits(first, graphed.price(book)));  // captured
  auto const before = graphs_of(graphed);
  REQUIRE(before.entries > 0);
  graphed.trim_memory();
  auto const trimmed = graphs_of(graphed);
  CHECK(trimmed.entries == 0);
  CHECK(trimmed.bytes == 0);
  CHECK(trimmed.pool_reserved == 0);  // no other engine's graphs live in this process now
  auto const again = graphed.price(book);
  CHECK(same_result_bits(first, again));
  CHECK(graphs_of(graphed).captures == 2 * before.captures);
  // Under a pool limit the graphs' scratch is admitted from it for their whole life.
  auto o = gpu_options(graph_mode::on, 65'536);
  o.pool_limit_bytes = std::size_t{64} << 20;
  engine const limited(m, o);
  for (int i = 0; i < 3; ++i) CHECK(same_result_bits(first, limited.price(book)));
  auto const lm = limited.memory();
  REQUIRE(lm->gate.has_value());
  CHECK(lm->gate->in_use <= lm->gate->budget);
}

TEST_CASE("GPU graphs: many threads replay the same shapes at once with the eager bits", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  auto const want = engine(m, gpu_options(graph_mode::off, 16'384)).price(book);
  engine const graphed(m, gpu_options(graph_mode::on, 16'384));
  std::vector<std::future<bool>> callers;
  for (int t = 0; t < 8; ++t) {
    callers.push_back(std::async(std::launch::async, [&] {
      bool all = true;
      for (int i = 0; i < 20; ++i) all = all && same_result_bits(want, graphed.price(book));
      return all;
    }));
  }
  for (auto& c : callers) CHECK(c.get());
  auto const g = graphs_of(graphed);
  CHECK(g.failures == 0);
  CHECK(g.in_use == 0);
  CHECK(g.captures > 0);
  CHECK(g.replays > 0);
}

TEST_CASE("GPU graphs: a stop reaches into a replayed graph: the request ends within a second, all cancelled", "[gpu]")
{
  // long_asian_book at 2^29 paths: about 1.8 s uninterrupted on an H200. A graph that large holds
  // its jobs' partials for its life (800 MiB): the cache is let hold it.
  auto const book = long_asian_book();
  auto o = gpu_options(graph_mode::on, std::int64_t{1} << 29);
  o.graph_cache_bytes = std::size_t{2} << 30;
  engine const eng(test_market(), o);
  for (int round = 0; round < 3; ++round) {  // eager, the capture's launch, then a replay
    auto const s = price_stopped(eng, book, std::chrono::milliseconds(300));
    INFO("round " << round << ": returned " << s.after_stop << " s after the stop");
    CHECK(s.after_stop < 1.0);
    for (auto const& r : s.run.results) CHECK(r.status == trade_status::cancelled);
  }
  CHECK(graphs_of(eng).replays >= 1);
}
