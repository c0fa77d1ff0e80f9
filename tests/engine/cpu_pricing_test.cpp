#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/portfolio_reader.hpp"
#include "pricing_cases.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine cpu_engine(std::int64_t paths, unsigned threads = 0, std::uint64_t seed = 42)
{
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = paths;
  o.threads = threads;
  o.seed = seed;
  return engine(test_market(), o);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("CPU prices agree with the closed forms within 4 standard errors")
{
  auto const market = test_market();
  auto const book = reference_book();
  auto const run = cpu_engine(200'000).price(book);
  REQUIRE(run.results.size() == book.trades.size());
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    double const ref = reference_price(book.trades[i], market);
    INFO(r.id << ": mc " << r.price << " +- " << r.std_error << ", reference " << ref << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    CHECK(r.paths == 200'000);
    CHECK(std::abs(r.price - ref) <= price_tolerance(r.std_error, ref));
    CHECK(r.ci_low <= r.price);
    CHECK(r.ci_high >= r.price);
  }
}

TEST_CASE("a trade with no variance prices exactly with a vanishing standard error")
{
  auto const book = reference_book();
  auto const run = cpu_engine(10'000).price(book);
  auto const& dead = run.results[6];
  CHECK(dead.std_error <= 1e-12 * dead.price);
  CHECK(std::abs(dead.price - reference_price(book.trades[6], test_market())) < 1e-4);
}

TEST_CASE("CPU results are bit-identical across reruns and thread counts", "[concurrency]")
{
  auto const book = reference_book();
  auto const base = cpu_engine(50'001, 1).price(book);
  for (unsigned threads : {1U, 2U, 3U, 7U}) {
    auto const again = cpu_engine(50'001, threads).price(book);
    for (std::size_t i = 0; i < book.trades.size(); ++i) {
      INFO(book.trades[i].id << " with " << threads << " threads");
      CHECK(same_bits(base.results[i].price, again.results[i].price));
      CHECK(same_bits(base.results[i].std_error, again.results[i].std_error));
    }
  }
}

TEST_CASE("concurrent callers on one CPU engine get the single-caller bits", "[concurrency]")
{
  auto const book = reference_book();
  auto const eng = cpu_engine(20'001, 2);
  auto const expected = eng.price(book);
  std::vector<std::future<pricing_run>> callers;
  for (int c = 0; c < 6; ++c) callers.push_back(std::async(std::launch::async, [&] { return eng.price(book); }));
  for (auto& f : callers) {
    auto const run = f.get();
    REQUIRE(run.results.size() == expected.results.size());
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      INFO(book.trades[i].id);
      CHECK(same_bits(run.results[i].price, expected.results[i].price));
      CHECK(same_bits(run.results[i].std_error, expected.results[i].std_error));
    }
  }
}

TEST_CASE("a trade's numbers do not depend on its neighbours or its row")
{
  auto const book = reference_book();
  auto const all = cpu_engine(20'000).price(book);
  portfolio alone;
  alone.trades = {book.trades[4]};
  auto const single = cpu_engine(20'000).price(alone);
  CHECK(same_bits(all.results[4].price, single.results[0].price));
  auto const other_seed = cpu_engine(20'000, 0, 7).price(alone);
  CHECK(!same_bits(single.results[0].price, other_seed.results[0].price));
}

TEST_CASE("per-trade path counts, including ones off the block size, are honoured")
{
  auto book = reference_book();
  book.trades[0].paths = 1001;
  book.trades[1].paths = 3;
  auto const run = cpu_engine(4096).price(book);
  // Antithetic sampling prices whole pairs: an odd request is rounded up to the next pair.
  CHECK(run.results[0].paths == 1002);
  CHECK(run.results[1].paths == 4);
  CHECK(run.results[2].paths == 4096);
  CHECK(run.summary.paths == 1002 + 4 + 4096 * 10);
}

TEST_CASE("failed trades are reported in place and the others still price")
{
  auto book = reference_book();
  book.trades.resize(3);
  trade bad = book.trades[0];
  bad.id = "bermudan-1";
  bad.product = product_kind::digital;
  bad.exercise = exercise_style::bermudan;
  bad.exercise_dates = 4;
  book.trades.insert(book.trades.begin() + 1, bad);
  trade missing = book.trades[0];
  missing.id = "ghost";
  missing.underlyings = {"NOPE"};
  book.trades.push_back(missing);
  trade expired = book.trades[0];
  expired.id = "expired";
  expired.maturity = -1;
  book.trades.push_back(expired);
  trade american = book.trades[0];
  american.id = "am";
  american.product = product_kind::digital;
  american.exercise = exercise_style::american;
  book.trades.push_back(american);

  auto const run = cpu_engine(4096).price(book);
  REQUIRE(run.results.size() == 7);
  CHECK(run.results[0].status == trade_status::ok);
  CHECK(run.results[1].status == trade_status::error);
  CHECK(run.results[1].message ==
        "trade bermudan-1: exercise bermudan is not supported for product digital (vanilla and multi-asset "
        "products only)");
  CHECK(run.results[2].status == trade_status::ok);
  CHECK(run.results[4].message == "trade ghost: underlying 'NOPE' is not in the market file");
  CHECK(run.results[5].message == "trade expired: maturity -1 must be > 0");
  CHECK(run.results[6].message ==
        "trade am: exercise american is not supported for product digital (vanilla and multi-asset products only)");
  CHECK(run.summary.failed == 4);
}

TEST_CASE("asking for a GPU where none is usable is a configuration error, auto falls back")
{
  if (usable_device_count() > 0) return;
  engine_options o;
  o.backend = backend_choice::gpu;
  CHECK_THROWS_AS(engine(test_market(), o), configuration_error);
  o.backend = backend_choice::automatic;
  engine const e(test_market(), o);
  CHECK(e.backend() == backend_kind::cpu);
  REQUIRE(e.notices().size() == 1);
  CHECK(e.notices()[0].find("pricing on the CPU backend") != std::string::npos);
}

TEST_CASE("a cancelled run prices what had started and marks the rest cancelled", "[concurrency]")
{
  auto const book = reference_book();
  std::atomic<bool> cancel{true};
  auto const none = cpu_engine(20'000).price(book, {}, &cancel);
  REQUIRE(none.results.size() == book.trades.size());
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    CHECK(none.results[i].status == trade_status::cancelled);
    CHECK(none.results[i].id == book.trades[i].id);
    CHECK(none.results[i].message.find("cancelled") != std::string::npos);
  }
  CHECK(none.summary.cancelled == book.trades.size());

  // Cancelled from another thread while the CPU works (1 thread, large paths): the trades that
  // finished keep the bits of a run that was never cancelled.
  auto const eng = cpu_engine(4'000'000, 1);
  cancel.store(false);
  auto stopper = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel.store(true);
  });
  auto const part = eng.price(book, {}, &cancel);
  stopper.get();
  std::size_t cancelled = 0;
  for (std::size_t i = 0; i < book.trades.size(); ++i)
    cancelled += part.results[i].status == trade_status::cancelled ? 1 : 0;
  CHECK(cancelled > 0);
  CHECK(part.summary.cancelled == cancelled);
  portfolio done;
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    if (part.results[i].status == trade_status::ok) {
      done.trades.push_back(book.trades[i]);
      rows.push_back(i);
    }
  }
  if (!done.trades.empty()) {
    auto const full = eng.price(done);
    for (std::size_t k = 0; k < rows.size(); ++k) CHECK(same_bits(full.results[k].price, part.results[rows[k]].price));
  }
}

// Progress on the CPU: kept threads price the segments while the caller reports every 200 ms.
// The last report is the whole; a callback that throws ends the call with its exception once
// every worker is done (they share the call's frame), and the engine then prices the same bits.
TEST_CASE("CPU progress ends at the whole, and a callback that throws leaves the engine whole", "[concurrency]")
{
  auto const book = reference_book();
  auto const eng = cpu_engine(5'000'000, 2);
  auto const quiet = eng.price(book);
  std::mutex mutex;
  std::vector<std::pair<std::int64_t, std::int64_t>> seen;
  auto const reported = eng.price(book, [&](std::int64_t done, std::int64_t total) {
    std::lock_guard<std::mutex> const lock(mutex);
    seen.emplace_back(done, total);
  });
  REQUIRE(seen.size() >= 2);  // at least one report while pricing, and the last
  CHECK(seen.back().first == seen.back().second);
  CHECK(seen.front().first < seen.front().second);
  auto const refuse = [](std::int64_t, std::int64_t) { throw std::runtime_error("progress refused"); };
  CHECK_THROWS_WITH(eng.price(book, refuse), "progress refused");
  auto const again = eng.price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    CHECK(same_bits(reported.results[i].price, quiet.results[i].price));
    CHECK(same_bits(again.results[i].price, quiet.results[i].price));
    CHECK(same_bits(again.results[i].std_error, quiet.results[i].std_error));
  }
}

// A stop reaches into the work under way: a trade's blocks and an early-exercise calibration
// (whose paths' buffer alone took tens of seconds to clear for a large book) stop within a
// block, and the trade comes back cancelled, never half-priced. Uninterrupted, the vanilla
// takes about 45 s and the American put 10 s on one core here.
TEST_CASE("a stop ends a trade under way within a block, calibration included", "[concurrency]")
{
  auto const eng = cpu_engine(1'000, 1);
  for (char const* row : {"V,vanilla,call,FLAT,100,1,,2000000000", "A,vanilla,put,FLAT,100,1,american,1000000"}) {
    auto const book = parse_portfolio(std::string("id,product,type,underlying,strike,maturity,exercise,paths\n") + row + "\n",
                                      "stop.csv");
    std::atomic<bool> cancel{false};
    auto stopper = std::async(std::launch::async, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cancel.store(true);
      return std::chrono::steady_clock::now();
    });
    auto const run = eng.price(book, {}, &cancel);
    auto const returned = std::chrono::steady_clock::now();
    auto const stopped = stopper.get();
    INFO(row);
    REQUIRE(run.results.size() == 1);
    CHECK(run.results[0].status == trade_status::cancelled);
    CHECK(std::chrono::duration<double>(returned - stopped).count() < 3.0);
  }
}

TEST_CASE("a traced call lists its phases in order within its wall time, and tracing keeps the bits")
{
  auto const book = reference_book();
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 20'000;
  auto const plain = engine(test_market(), o).price(book);
  CHECK(plain.summary.timeline.empty());
  o.timeline = true;
  auto const traced = engine(test_market(), o).price(book);
  REQUIRE(traced.results.size() == plain.results.size());
  for (std::size_t i = 0; i < book.trades.size(); ++i)
    CHECK(same_bits(traced.results[i].price, plain.results[i].price));
  auto const& spans = traced.summary.timeline;
  std::vector<std::string> what;
  for (auto const& s : spans) {
    what.push_back(s.what);
    CHECK(s.begin_seconds >= 0.0);
    CHECK(s.begin_seconds <= s.end_seconds);
    CHECK(s.end_seconds <= traced.summary.wall_seconds + 1e-9);
    CHECK_FALSE(s.device);  // the CPU backend has no device spans
  }
  CHECK(what == std::vector<std::string>{"setup", "prepare", "price", "results", "finish"});
  for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i - 1].end_seconds <= spans[i].begin_seconds + 1e-9);
}
