#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/market_reader.hpp"
#include "mcprice/memory/device_info.hpp"
#include "mcprice/memory/fault_injection.hpp"
#include "path_references.hpp"
#include "pricing_cases.hpp"
#include "stop_timing.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <thread>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

engine make_engine(backend_choice b, std::int64_t paths, int grid_blocks = 0)
{
  engine_options o;
  o.backend = b;
  o.paths = paths;
  o.grid_blocks = grid_blocks;
  return engine(test_market(), o);
}

bool same_bits(const pricing_run& a, const pricing_run& b)
{
  if (a.results.size() != b.results.size()) return false;
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (std::memcmp(&a.results[i].price, &b.results[i].price, sizeof(double)) != 0) return false;
    if (std::memcmp(&a.results[i].std_error, &b.results[i].std_error, sizeof(double)) != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("GPU prices agree with the closed forms within 4 standard errors", "[gpu]")
{
  auto const market = test_market();
  auto const book = reference_book();
  auto const gpu = make_engine(backend_choice::gpu, 4'000'000);
  REQUIRE(gpu.backend() == backend_kind::gpu);
  auto const run = gpu.price(book);
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    double const ref = reference_price(book.trades[i], market);
    INFO(r.id << ": mc " << r.price << " +- " << r.std_error << ", reference " << ref);
    REQUIRE(r.status == trade_status::ok);
    CHECK(std::abs(r.price - ref) <= price_tolerance(r.std_error, ref));
  }
}

TEST_CASE("GPU and CPU prices for the same seed agree to float rounding", "[gpu]")
{
  auto const book = reference_book();
  std::int64_t const paths = 300'000;
  auto const gpu = make_engine(backend_choice::gpu, paths).price(book);
  auto const cpu = make_engine(backend_choice::cpu, paths).price(book);
  auto const market = test_market();
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    const trade& t = book.trades[i];
    double const g = gpu.results[i].price;
    double const c = cpu.results[i].price;
    // Digitals may flip a path that lands within float rounding of the strike: allow two.
    double flips = 0.0;
    if (t.product == product_kind::digital) {
      double const df = market.discount().discount(t.maturity);
      double const unit = t.digital == digital_kind::cash ? t.payout : 2.0 * *t.strike;
      flips = 2.0 * unit * df * std::abs(t.notional) / static_cast<double>(paths);
    }
    INFO(t.id << ": gpu " << g << ", cpu " << c);
    CHECK(std::abs(g - c) <= 1e-5 * std::abs(c) + flips + 1e-12);
  }
}

TEST_CASE("GPU results are bit-identical across reruns and grid sizes", "[gpu]")
{
  auto const book = reference_book();
  auto const base = make_engine(backend_choice::gpu, 1'000'003).price(book);
  for (int grid : {0, 1, 3, 132, 5000}) {
    INFO("grid " << grid);
    CHECK(same_bits(base, make_engine(backend_choice::gpu, 1'000'003, grid).price(book)));
  }
}

TEST_CASE("GPU: a trade priced alone has the same bits as in a book", "[gpu]")
{
  auto const book = reference_book();
  auto const eng = make_engine(backend_choice::gpu, 100'000);
  auto const all = eng.price(book);
  portfolio alone;
  alone.trades = {book.trades[3]};
  auto const single = eng.price(alone);
  CHECK(std::memcmp(&all.results[3].price, &single.results[0].price, sizeof(double)) == 0);
}

TEST_CASE("GPU: a traced pipelined call has a device span per job, inside its chunk's work, and the same bits", "[gpu]")
{
  auto const big = repeated_reference_book(100);  // 1,200 trades
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 262'144;
  auto const plain = engine(test_market(), o).price(big);
  o.timeline = true;
  auto const traced = engine(test_market(), o).price(big);
  REQUIRE(traced.summary.chunks > 1);
  for (std::size_t i = 0; i < big.trades.size(); ++i) {
    REQUIRE(std::memcmp(&traced.results[i].price, &plain.results[i].price, sizeof(double)) == 0);
  }
  std::size_t jobs = 0;
  for (auto const& s : traced.summary.timeline) {
    CHECK(s.begin_seconds <= s.end_seconds);
    if (!s.device) continue;
    if (s.what == "job") ++jobs;  // the others: each request's upload
    // A job runs after its chunk started pricing and before the call ends.
    double chunk_start = 1e9;
    for (auto const& h : traced.summary.timeline) {
      if (!h.device && h.what == "price" && h.chunk == s.chunk) chunk_start = h.begin_seconds;
    }
    CHECK(s.begin_seconds >= chunk_start - 1e-4);  // the clocks are tied within microseconds
    CHECK(s.end_seconds <= traced.summary.wall_seconds + 1e-4);
  }
  CHECK(jobs == traced.summary.jobs);
}

TEST_CASE("GPU: a large book, priced as a pipeline of chunks, gives every trade its bits alone", "[gpu]")
{
  // 10,000 trades go as several chunks; mixed families ride in every chunk.
  auto const big = repeated_reference_book(834);               // 10,008 trades
  auto const eng = make_engine(backend_choice::gpu, 131'072);  // enough GPU work per trade for a pipeline
  auto const all = eng.price(big);
  REQUIRE(all.summary.failed == 0);
  CHECK(all.summary.chunks > 1);
  for (std::size_t i : {std::size_t{0}, std::size_t{2'047}, std::size_t{5'000}, std::size_t{10'007}}) {
    portfolio alone;
    alone.trades = {big.trades[i]};
    auto const single = eng.price(alone);
    INFO(big.trades[i].id);
    CHECK(std::memcmp(&all.results[i].price, &single.results[0].price, sizeof(double)) == 0);
    CHECK(std::memcmp(&all.results[i].std_error, &single.results[0].std_error, sizeof(double)) == 0);
  }
}

TEST_CASE("concurrent callers on one engine get the single-caller bits", "[gpu]")
{
  auto const book = reference_book();
  auto const eng = make_engine(backend_choice::gpu, 200'000);
  auto const expected = eng.price(book);
  std::vector<std::future<pricing_run>> callers;
  for (int i = 0; i < 6; ++i) callers.push_back(std::async(std::launch::async, [&] { return eng.price(book); }));
  for (auto& f : callers) CHECK(same_bits(expected, f.get()));
}

TEST_CASE("GPU results are bit-identical across job caps, allocators and stream counts", "[gpu]")
{
  auto const book = reference_book();
  engine_options base_options;
  base_options.backend = backend_choice::gpu;
  base_options.paths = 18'000'001;  // two segments per trade (antithetic pairs: 1,099 blocks)
  auto const base = engine(test_market(), base_options).price(book);
  // 130 KiB is about the least that holds one full segment (1024 blocks of 8 partials, 128 KiB).
  for (std::size_t cap : {std::size_t{130} << 10, std::size_t{1} << 20}) {
    engine_options o = base_options;
    o.job_cap_bytes = cap;
    INFO("job cap " << cap);
    CHECK(same_bits(base, engine(test_market(), o).price(book)));
  }
  for (auto kind : {allocator_kind::malloc, allocator_kind::async_default, allocator_kind::pool}) {
    engine_options o = base_options;
    o.allocator = kind;
    o.streams = 2;
    INFO("allocator " << static_cast<int>(kind));
    CHECK(same_bits(base, engine(test_market(), o).price(book)));
  }
}

TEST_CASE("GPU: a recorded allocation profile holds every job's scratch; classes and recording keep the bits",
          "[gpu]")
{
  auto const book = reference_book();
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 18'000'001;
  o.job_cap_bytes = std::size_t{1} << 20;  // several jobs
  auto const base = engine(test_market(), o).price(book);
  o.record_allocations = true;
  o.size_class_min_bytes = 4096;  // other classes, as a --memory-settings file gives them
  o.size_classes_per_doubling = 8;
  engine e(test_market(), o);
  auto const run = e.price(book);
  CHECK(same_bits(base, run));
  auto const report = e.memory();
  REQUIRE(report);
  REQUIRE(report->profile);
  auto const& p = *report->profile;
  CHECK(p.jobs.size() == run.summary.jobs);  // a lease a job
  // Block moments and CUB's temporaries (the segment sums go straight to the pinned staging).
  CHECK(p.allocations.size() >= 2 * run.summary.jobs);
  for (auto const& a : p.allocations) {
    CHECK(a.freed_at >= a.allocated_at);
    CHECK(a.granted >= a.bytes);
  }
  for (auto const& j : p.jobs) CHECK(j.peak_bytes <= o.job_cap_bytes);
  CHECK(p.peak_bytes > 0);
}

TEST_CASE("under a tight pool limit concurrent callers wait or come again, and keep their bits", "[gpu]")
{
  auto const book = reference_book();
  engine_options base;
  base.backend = backend_choice::gpu;
  base.paths = 2'000'000;
  base.route = kernel_route::two_phase;  // the scratch-heavy route: every job holds its normals
  base.streams = 4;
  auto const expected = engine(test_market(), base).price(book);
  std::size_t peak = 0;
  {
    engine const free_run(test_market(), base);
    std::vector<std::future<pricing_run>> callers;
    for (int i = 0; i < 6; ++i) callers.push_back(std::async(std::launch::async, [&] { return free_run.price(book); }));
    for (auto& f : callers) CHECK(same_bits(expected, f.get()));
    peak = free_run.memory()->scratch->requested_peak;
  }
  // The plain driver pool is left out: its own cap can refuse memory whose frees are still
  // queued on another stream (docs/load_test.md).
  for (auto kind : {allocator_kind::bucketed, allocator_kind::malloc}) {
    engine_options o = base;
    o.allocator = kind;
    o.pool_limit_bytes = peak * 6 / 10;
    INFO("allocator " << static_cast<int>(kind) << ", limit " << o.pool_limit_bytes << " of peak " << peak);
    engine const tight(test_market(), o);
    std::vector<std::future<pricing_run>> callers;
    for (int i = 0; i < 6; ++i) callers.push_back(std::async(std::launch::async, [&] { return tight.price(book); }));
    for (auto& f : callers) {
      auto const run = f.get();
      CHECK(run.summary.failed == 0);
      CHECK(same_bits(expected, run));
    }
    auto const report = tight.memory();
    REQUIRE(report->gate);
    CHECK(report->gate->in_use == 0);
    CHECK(report->gate->peak <= o.pool_limit_bytes);
    if (report->scratch) CHECK(report->scratch->reserved_peak <= o.pool_limit_bytes);
    if (report->requests) CHECK(report->requests->failures == 0);
    if (report->gate->waits + report->job_retries == 0) WARN("no job had to wait: the limit put no pressure");
  }
}

TEST_CASE("a job cap too small for one chunk fails the trade clearly; the engine reports memory", "[gpu]")
{
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 100'000;
  o.job_cap_bytes = 300;  // one segment needs at least 256 B of partials, 256 B of sums and CUB's temporaries
  engine const eng(test_market(), o);
  auto const run = eng.price(reference_book());
  REQUIRE(run.results[0].status == trade_status::error);
  CHECK(run.results[0].message.find("--job-cap 300 bytes is smaller than the") != std::string::npos);

  engine_options ok = o;
  ok.job_cap_bytes = 0;
  engine const fine(test_market(), ok);
  (void)fine.price(reference_book());
  auto const report = fine.memory();
  REQUIRE(report);
  CHECK(report->allocator == "bucketed");
  REQUIRE(report->scratch);
  CHECK(report->scratch->allocations > 0);
  CHECK(report->scratch->requested == 0);  // everything returned after the request
  CHECK(report->market_rdma_capable);
  fine.trim_memory();
  CHECK(fine.memory()->scratch->reserved == 0);
}

TEST_CASE("the two-phase route gives the fused route's bits", "[gpu]")
{
  auto const book = reference_book();
  for (bool antithetic : {true, false}) {
    engine_options o;
    o.backend = backend_choice::gpu;
    o.paths = 9'000'001;
    o.antithetic = antithetic;
    o.route = kernel_route::fused;
    auto const fused = engine(test_market(), o).price(book);
    o.route = kernel_route::two_phase;
    o.job_cap_bytes = std::size_t{128} << 20;  // path and payoff scratch: 96 KiB a block, 1024 blocks a segment
    auto const two_phase = engine(test_market(), o).price(book);
    INFO("antithetic " << antithetic);
    CHECK(same_bits(fused, two_phase));
    CHECK(two_phase.summary.jobs > 1);
  }
}

TEST_CASE("results do not depend on the number of streams", "[gpu]")
{
  auto const book = reference_book();
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 9'000'001;
  o.streams = 1;
  auto const one = engine(test_market(), o).price(book);
  CHECK(one.summary.jobs > 1);
  for (int streams : {2, 3, 5, 8}) {
    o.streams = streams;
    INFO(streams << " streams");
    CHECK(same_bits(one, engine(test_market(), o).price(book)));
  }
}

TEST_CASE("GPU path products: closed forms, CPU agreement and reproducible bits", "[gpu]")
{
  auto const m =
      parse_market(R"({"rate": 0.05, "assets": {"X": {"spot": 100, "dividend_yield": 0.02, "vol": 0.25}}})", "flat");
  trade doc;
  doc.id = "do-call";
  doc.product = product_kind::barrier;
  doc.type = option_type::call;
  doc.underlyings = {"X"};
  doc.maturity = 1.0;
  doc.strike = 100.0;
  doc.barrier = 85.0;
  doc.barrier_type = barrier_kind::down_out;
  trade geo = doc;
  geo.id = "geo";
  geo.product = product_kind::asian;
  geo.averaging = averaging_kind::geometric;
  geo.barrier.reset();
  geo.barrier_type.reset();
  geo.fixings = 12;
  trade touch = doc;
  touch.id = "touch";
  touch.product = product_kind::touch;
  touch.type = option_type::one_touch;
  touch.barrier = 80.0;
  touch.barrier_type = barrier_kind::down;
  touch.pay_at = payment_time::hit;
  trade lb = doc;
  lb.id = "lookback";
  lb.product = product_kind::lookback;
  lb.barrier.reset();
  lb.barrier_type.reset();
  lb.strike.reset();
  lb.strike_type = strike_kind::floating;
  portfolio book;
  book.trades = {doc, geo, touch, lb};

  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 2'000'000;
  o.steps = 64;
  auto const gpu = engine(m, o).price(book);
  constexpr flat_bs flat{100.0, 0.05, 0.02, 0.25, 1.0};
  std::vector<double> fix;
  for (int i = 1; i <= 12; ++i) fix.push_back(i / 12.0);
  double const refs[4] = {knock_out_by_reflection(flat, 100.0, 85.0, true),
                          geometric_asian(m, m.assets()[0], fix, 1.0, 100.0, true, false),
                          one_touch_at_hit(flat, 80.0, true), lookback(flat, true, true, 0.0, 100.0)};
  for (int i = 0; i < 4; ++i) {
    auto const& r = gpu.results[static_cast<std::size_t>(i)];
    INFO(r.id << ": gpu " << r.price << " +- " << r.std_error << ", reference " << refs[i] << " " << r.message);
    REQUIRE(r.status == trade_status::ok);
    CHECK(std::abs(r.price - refs[i]) <= price_tolerance(r.std_error, refs[i]));
  }

  o.paths = 200'000;
  auto const g = engine(m, o).price(book);
  o.backend = backend_choice::cpu;
  auto const c = engine(m, o).price(book);
  for (int i = 0; i < 4; ++i) {
    double const a = g.results[static_cast<std::size_t>(i)].price;
    double const b = c.results[static_cast<std::size_t>(i)].price;
    INFO(book.trades[static_cast<std::size_t>(i)].id << ": gpu " << a << ", cpu " << b);
    CHECK(std::abs(a - b) <= 2e-5 * std::abs(b) + 1e-9);
  }
  o.backend = backend_choice::gpu;
  o.streams = 1;
  o.grid_blocks = 7;
  CHECK(same_bits(g, engine(m, o).price(book)));
}

TEST_CASE("GPU path products take the two-phase route with the fused route's bits", "[gpu]")
{
  auto const m =
      parse_market(R"({"rate": 0.03, "assets": {"X": {"spot": 100, "dividend_yield": 0.01, "vol": 0.3}}})", "flat");
  trade asian;
  asian.id = "asian-cv";
  asian.product = product_kind::asian;
  asian.type = option_type::call;
  asian.underlyings = {"X"};
  asian.maturity = 1.0;
  asian.strike = 100.0;
  asian.fixings = 52;
  trade floating = asian;
  floating.id = "asian-floating-geo";
  floating.strike.reset();
  floating.strike_type = strike_kind::floating;
  floating.averaging = averaging_kind::geometric;
  trade barrier = asian;
  barrier.id = "up-in-put-rebate";
  barrier.product = product_kind::barrier;
  barrier.type = option_type::put;
  barrier.fixings.reset();
  barrier.barrier = 120.0;
  barrier.barrier_type = barrier_kind::up_in;
  barrier.rebate = 2.0;
  trade discrete = barrier;
  discrete.id = "discrete-down-out";
  discrete.barrier = 80.0;
  discrete.barrier_type = barrier_kind::down_out;
  discrete.monitoring = monitoring_kind::discrete;
  discrete.fixings = 12;
  trade touch = barrier;
  touch.id = "no-touch";
  touch.product = product_kind::touch;
  touch.type = option_type::no_touch;
  touch.barrier_type = barrier_kind::up;
  trade lookback = asian;
  lookback.id = "lookback-fixed";
  lookback.product = product_kind::lookback;
  lookback.fixings.reset();
  portfolio book;
  book.trades = {asian, floating, barrier, discrete, touch, lookback};
  for (bool antithetic : {true, false}) {
    engine_options o;
    o.backend = backend_choice::gpu;
    o.paths = 300'001;
    o.steps = 40;
    o.antithetic = antithetic;
    auto const fused = engine(m, o).price(book);
    o.route = kernel_route::two_phase;
    auto const two_phase = engine(m, o).price(book);
    INFO("antithetic " << antithetic);
    for (auto const& r : two_phase.results) {
      INFO(r.id << " " << r.message);
      CHECK(r.status == trade_status::ok);
    }
    CHECK(same_bits(fused, two_phase));
  }
}

TEST_CASE("an injected allocation failure fails only its job; the others keep their bits; nothing leaks", "[gpu]")
{
  auto const book = reference_book();
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 18'000'001;                      // two segments a trade
  o.job_cap_bytes = std::size_t{160} << 10;  // about one segment a job: many jobs
  o.pipeline_chunk_trades = 0;
  auto const clean = engine(test_market(), o).price(book);
  engine const eng(test_market(), o);
  std::size_t const before = fault_injection::injected();
  fault_injection::fail_scratch_allocation(9);  // somewhere in the third job
  auto const run = eng.price(book);
  fault_injection::clear();
  CHECK(fault_injection::injected() == before + 1);
  std::size_t failed = 0;
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    INFO(r.id << ": " << r.message);
    if (r.status == trade_status::error) {
      ++failed;
      CHECK(r.message.find("injected failure") != std::string::npos);
      continue;
    }
    CHECK(std::memcmp(&r.price, &clean.results[i].price, sizeof(double)) == 0);
    CHECK(std::memcmp(&r.std_error, &clean.results[i].std_error, sizeof(double)) == 0);
  }
  CHECK(failed >= 1);
  CHECK(failed <= 2);  // the failed job's segments belong to at most two trades
  auto const report = eng.memory();
  REQUIRE(report);
  REQUIRE(report->scratch);
  CHECK(report->scratch->requested == 0);  // every lease gave back what it held
  // The engine is whole afterwards: the same book prices clean, with the clean run's bits.
  CHECK(same_bits(clean, eng.price(book)));
}

TEST_CASE("with a tiny pool limit and tiny job caps a large book still completes with its bits", "[gpu]")
{
  // 96 trades of 2M paths each: jobs of about one segment (160 KiB cap), four streams sharing a
  // pool limited to 400 KiB, less than the jobs in flight would take: jobs wait for each other's
  // stream-ordered frees. Every trade must price with the unconstrained run's bits, or fail
  // alone with a message that says the pool ran out; no row may be lost.
  auto const book = repeated_reference_book(8);
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 2'000'000;
  auto const free_run = engine(test_market(), o).price(book);
  o.job_cap_bytes = std::size_t{160} << 10;
  o.pool_limit_bytes = std::size_t{400} << 10;
  o.streams = 4;
  engine const tight(test_market(), o);
  auto const run = tight.price(book);
  REQUIRE(run.results.size() == book.trades.size());
  std::size_t ok = 0;
  for (std::size_t i = 0; i < book.trades.size(); ++i) {
    auto const& r = run.results[i];
    INFO(r.id << ": " << r.message);
    if (r.status == trade_status::ok) {
      ++ok;
      CHECK(std::memcmp(&r.price, &free_run.results[i].price, sizeof(double)) == 0);
    } else {
      CHECK(r.message.find("out of device memory") != std::string::npos);
    }
  }
  CHECK(ok == book.trades.size());  // the pool waits rather than fails at this pressure
  auto const report = tight.memory();
  REQUIRE(report);
  REQUIRE(report->scratch);
  CHECK(report->scratch->reserved_peak <= o.pool_limit_bytes);
  CHECK(report->scratch->requested == 0);
}

TEST_CASE("GPU: a cancelled run marks what it did not start and keeps the bits of what it priced", "[gpu]")
{
  auto const opts = repeated_reference_book(64);
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 4'000'000;
  o.pipeline_chunk_trades = 64;  // 768 trades as a pipeline of chunks: cancellation points
  engine const eng(test_market(), o);
  auto const full = eng.price(opts);
  std::atomic<bool> cancel{true};
  auto const none = eng.price(opts, {}, &cancel);
  for (auto const& r : none.results) CHECK(r.status == trade_status::cancelled);

  cancel.store(false);
  auto stopper = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::microseconds(1500));
    cancel.store(true);
  });
  auto const part = eng.price(opts, {}, &cancel);
  stopper.get();
  REQUIRE(part.results.size() == opts.trades.size());
  std::size_t cancelled = 0;
  for (std::size_t i = 0; i < opts.trades.size(); ++i) {
    auto const& r = part.results[i];
    INFO(r.id << ": " << r.message);
    CHECK(r.id == opts.trades[i].id);
    if (r.status == trade_status::cancelled) {
      ++cancelled;
      continue;
    }
    REQUIRE(r.status == trade_status::ok);
    CHECK(std::memcmp(&r.price, &full.results[i].price, sizeof(double)) == 0);
  }
  CHECK(part.summary.cancelled == cancelled);
  WARN("cancelled " << cancelled << " of " << opts.trades.size() << " trades 1.5 ms into the run");
}

TEST_CASE("GPU: a stop reaches into queued kernels: a long request ends within a second, all cancelled", "[gpu]")
{
  // One request of seconds (long_asian_book at 2^30 paths), on the path kernel and then on the
  // path Greeks' kernel.
  auto const book = long_asian_book();
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = std::int64_t{1} << 30;
  for (bool const greeks : {false, true}) {
    o.greeks = greeks;
    engine const eng(test_market(), o);
    auto const s = price_stopped(eng, book, std::chrono::milliseconds(300));
    INFO("greeks " << greeks << ": returned " << s.after_stop << " s after the stop");
    CHECK(s.after_stop < 1.0);
    // Whatever a stopped request summed is partial: none of its trades may come back priced.
    for (auto const& r : s.run.results) CHECK(r.status == trade_status::cancelled);
    CHECK(s.run.summary.cancelled == book.trades.size());
    WARN((greeks ? "with Greeks: " : "prices: ") << "returned " << s.after_stop << " s after the stop");
  }
}

TEST_CASE("GPU: an engine on several devices gives one device's bits, in input order", "[gpu]")
{
  // Every usable GPU, and GPU 0 once more: two engines may share a GPU, so a one-GPU machine
  // still splits the book.
  std::vector<int> devices;
  for (int d = 0; d < usable_device_count(); ++d) devices.push_back(d);
  devices.push_back(0);
  auto const big = repeated_reference_book(250);  // 3,000 trades
  engine_options o;
  o.backend = backend_choice::gpu;
  o.paths = 131'072;
  o.greeks = true;
  auto const one = engine(test_market(), o).price(big);
  o.devices = devices;
  engine const several(test_market(), o);
  CHECK(several.device_count() == devices.size());
  CHECK(several.memory(devices.size() - 1).has_value());
  auto const split = several.price(big);
  CHECK(same_bits(one, split));
  for (std::size_t i = 0; i < one.results.size(); ++i) {
    REQUIRE(split.results[i].id == one.results[i].id);
    if (!one.results[i].greeks) continue;
    auto const a = one.results[i].greeks->all();
    auto const b = split.results[i].greeks->all();
    REQUIRE(a.size() == b.size());
    for (std::size_t g = 0; g < a.size(); ++g) CHECK(std::memcmp(&a[g].value, &b[g].value, sizeof(double)) == 0);
  }
  CHECK(split.summary.devices == devices.size());
  CHECK(split.summary.device_name == one.summary.device_name);  // one model: as for one GPU
  o.devices = {0, usable_device_count()};
  CHECK_THROWS_AS(engine(test_market(), o), configuration_error);
}
