#include "runtime/call_batcher.hpp"
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "mcprice/input_error.hpp"
#include "pricing_cases.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace mcprice;
using namespace mcprice::detail;

namespace {

portfolio book_of(const std::string& prefix, int trades)
{
  portfolio b;
  for (int i = 0; i < trades; ++i) {
    trade t;
    t.id = prefix + std::to_string(i);
    b.trades.push_back(t);
  }
  return b;
}

// A pricer that records the books it was given, takes `busy` to price each, and prices a trade
// as a number taken from its id's length and last character (so rows can be checked).
struct recording_pricer {
  std::chrono::milliseconds busy{0};
  std::mutex mutex;
  std::vector<std::vector<std::string>> books;

  std::atomic<bool> stopped{false};

  // Busy in 10 ms steps, reporting them as progress (10 samples a step) and leaving when the
  // cancel flag is set (then every row is cancelled).
  pricing_run operator()(const portfolio& book, const progress_callback& progress, const std::atomic<bool>* cancel)
  {
    {
      std::lock_guard<std::mutex> const lock(mutex);
      std::vector<std::string> ids;
      for (auto const& t : book.trades) ids.push_back(t.id);
      books.push_back(ids);
    }
    std::int64_t const steps = busy.count() / 10;
    for (std::int64_t i = 0; i < steps && !stopped; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (progress) progress(10 * (i + 1), 10 * steps);
      if (cancel != nullptr && *cancel) stopped = true;
    }
    pricing_run run;
    for (auto const& t : book.trades) {
      trade_result r;
      r.id = t.id;
      r.status = t.id.back() == '2' || stopped ? trade_status::cancelled : trade_status::ok;
      r.price = static_cast<double>(t.id.size()) + 0.5 * (t.id.back() - '0');
      r.paths = 1000;
      run.results.push_back(r);
    }
    run.summary.trades = book.trades.size();
    run.summary.jobs = 7;
    return run;
  }
};

}  // namespace

TEST_CASE("a lone call is priced at once and alone", "[batching]")
{
  call_batcher batcher(std::chrono::seconds(5), 4096);
  recording_pricer pricer;
  auto const start = std::chrono::steady_clock::now();
  auto const run = batcher.price(book_of("a", 3), std::ref(pricer));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));  // no window waited
  CHECK(run.results.size() == 3);
  CHECK(run.summary.batch_calls == 1);
  CHECK(pricer.books.size() == 1);
}

TEST_CASE("calls that arrive while another is priced are priced as one book, each with its own rows",
          "[batching][concurrency]")
{
  call_batcher batcher(std::chrono::milliseconds(300), 4096);
  recording_pricer pricer;
  pricer.busy = std::chrono::milliseconds(600);
  auto price = std::ref(pricer);
  // The first call is in flight (alone) for 600 ms; b opens a batch; c and d join it.
  auto first = std::async(std::launch::async, [&] { return batcher.price(book_of("a", 2), price); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto b = std::async(std::launch::async, [&] { return batcher.price(book_of("bb", 3), price); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto c = std::async(std::launch::async, [&] { return batcher.price(book_of("ccc", 1), price); });
  auto d = std::async(std::launch::async, [&] { return batcher.price(book_of("dddd", 4), price); });
  auto const ra = first.get();
  auto const rb = b.get();
  auto const rc = c.get();
  auto const rd = d.get();
  REQUIRE(pricer.books.size() == 2);
  CHECK(pricer.books[0] == std::vector<std::string>{"a0", "a1"});
  CHECK(pricer.books[1].size() == 8);  // bb0..2, then c's and d's in the order they joined
  CHECK(ra.summary.batch_calls == 1);
  for (auto const* r : {&rb, &rc, &rd}) CHECK(r->summary.batch_calls == 3);
  // Each call's rows are its own, in its order, with its own counts.
  auto check_rows = [](const pricing_run& run, const std::string& prefix, std::size_t n) {
    REQUIRE(run.results.size() == n);
    std::size_t cancelled = 0;
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(run.results[i].id == prefix + std::to_string(i));
      CHECK(run.results[i].price == static_cast<double>(prefix.size() + 1) + 0.5 * static_cast<double>(i));
      cancelled += i == 2 ? 1 : 0;
    }
    CHECK(run.summary.trades == n);
    CHECK(run.summary.cancelled == cancelled);
    CHECK(run.summary.failed == 0);
    CHECK(run.summary.paths == static_cast<std::int64_t>(1000 * (n - cancelled)));
    CHECK(run.summary.jobs == 7);  // the batch's
  };
  check_rows(rb, "bb", 3);
  check_rows(rc, "ccc", 1);
  check_rows(rd, "dddd", 4);
}

TEST_CASE("an open batch goes as soon as the calls ahead of it are done, not at its window's end", "[batching]")
{
  call_batcher batcher(std::chrono::seconds(5), 4096);
  recording_pricer pricer;
  pricer.busy = std::chrono::milliseconds(300);
  auto price = std::ref(pricer);
  auto const start = std::chrono::steady_clock::now();
  auto first = std::async(std::launch::async, [&] { return batcher.price(book_of("a", 1), price); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto b = std::async(std::launch::async, [&] { return batcher.price(book_of("bb", 1), price); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto c = std::async(std::launch::async, [&] { return batcher.price(book_of("ccc", 1), price); });
  first.get();
  CHECK(b.get().summary.batch_calls == 2);
  CHECK(c.get().summary.batch_calls == 2);
  // The first call ends at about 300 ms, the batch at about 600 ms: far from the 5 s window.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  CHECK(pricer.books.size() == 2);
}

TEST_CASE("a batch closes at its trade limit, and what pricing it threw reaches every call in it", "[batching]")
{
  call_batcher batcher(std::chrono::seconds(5), 5);
  std::atomic<int> calls{0};
  auto slow = [&](const portfolio& b, const progress_callback&, const std::atomic<bool>*) {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (b.trades.size() == 5) throw std::runtime_error("device lost");
    return pricing_run{};
  };
  auto busy = std::async(std::launch::async, [&] { return batcher.price(book_of("a", 1), slow); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto const start = std::chrono::steady_clock::now();
  auto leader = std::async(std::launch::async, [&] { return batcher.price(book_of("b", 3), slow); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto joiner = std::async(std::launch::async, [&] { return batcher.price(book_of("c", 2), slow); });
  CHECK_THROWS_WITH(leader.get(), "device lost");
  CHECK_THROWS_WITH(joiner.get(), "device lost");
  // Full at 5 trades: priced without waiting out the 5 s window.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  CHECK_NOTHROW(busy.get());
  CHECK(calls == 2);
}

TEST_CASE("a call whose cancel flag is set leaves its batch at once, cancelled; the others get their rows",
          "[batching][concurrency]")
{
  call_batcher batcher(std::chrono::seconds(5), 4096);
  recording_pricer pricer;
  pricer.busy = std::chrono::milliseconds(800);
  std::atomic<bool> stop_c{false};
  std::vector<std::int64_t> seen_total;  // c's progress, on c's thread
  auto progress_c = [&](std::int64_t, std::int64_t total) { seen_total.push_back(total); };
  // a is in flight alone; b opens a batch and c joins it (with a flag and a progress callback),
  // so the batch is priced on a worker while b and c wait; it goes once a is done (~800 ms).
  auto a = std::async(std::launch::async, [&] { return batcher.price(book_of("a", 1), std::ref(pricer)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto b = std::async(std::launch::async, [&] { return batcher.price(book_of("bb", 3), std::ref(pricer)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto c = std::async(std::launch::async,
                      [&] { return batcher.price(book_of("ccc", 4), std::ref(pricer), progress_c, &stop_c); });
  a.get();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the batch is being priced
  auto const flagged = std::chrono::steady_clock::now();
  stop_c = true;
  auto const rc = c.get();
  CHECK(std::chrono::steady_clock::now() - flagged < std::chrono::milliseconds(300));  // not the batch's 800 ms
  REQUIRE(rc.results.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(rc.results[i].id == "ccc" + std::to_string(i));
    CHECK(rc.results[i].status == trade_status::cancelled);
  }
  CHECK(rc.summary.cancelled == 4);
  CHECK(rc.summary.batch_calls == 2);
  // c saw the batch's progress (80 steps of 10 samples), and b's call went on unstopped.
  REQUIRE(!seen_total.empty());
  CHECK(seen_total.back() == 800);
  auto const rb = b.get();
  CHECK(!pricer.stopped);
  REQUIRE(rb.results.size() == 3);
  CHECK(rb.results[0].status == trade_status::ok);
  CHECK(rb.summary.batch_calls == 2);
}

TEST_CASE("a batch whose every call is cancelled is stopped, and its calls return within its stop",
          "[batching][concurrency]")
{
  call_batcher batcher(std::chrono::seconds(5), 4096);
  recording_pricer pricer;
  pricer.busy = std::chrono::milliseconds(3000);
  recording_pricer first;
  first.busy = std::chrono::milliseconds(200);
  std::atomic<bool> stop_b{false};
  std::atomic<bool> stop_c{false};
  auto a = std::async(std::launch::async, [&] { return batcher.price(book_of("a", 1), std::ref(first)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto b =
      std::async(std::launch::async, [&] { return batcher.price(book_of("bb", 2), std::ref(pricer), {}, &stop_b); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto c =
      std::async(std::launch::async, [&] { return batcher.price(book_of("ccc", 2), std::ref(pricer), {}, &stop_c); });
  a.get();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto const flagged = std::chrono::steady_clock::now();
  stop_b = true;
  stop_c = true;
  auto const rb = b.get();
  auto const rc = c.get();
  CHECK(std::chrono::steady_clock::now() - flagged < std::chrono::milliseconds(500));  // not the batch's 3 s
  CHECK(pricer.stopped);
  for (auto const* r : {&rb, &rc}) {
    CHECK(r->summary.cancelled == 2);
    CHECK(r->summary.batch_calls == 2);
  }
}

TEST_CASE("a call whose flag is already set is not batched", "[batching]")
{
  call_batcher batcher(std::chrono::seconds(5), 4096);
  recording_pricer pricer;
  pricer.busy = std::chrono::milliseconds(300);
  std::atomic<bool> stopped{true};
  auto a = std::async(std::launch::async, [&] { return batcher.price(book_of("a", 1), std::ref(pricer)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto const start = std::chrono::steady_clock::now();
  auto const rb = batcher.price(book_of("bb", 1), std::ref(pricer), {}, &stopped);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(250));  // not behind a
  CHECK(rb.summary.batch_calls == 1);
  REQUIRE(rb.results.size() == 1);
  CHECK(rb.results[0].status == trade_status::cancelled);
  a.get();
}

TEST_CASE("an engine that batches callers gives every caller the bits it gets alone", "[batching][concurrency]")
{
  using namespace mcprice::testing;
  engine_options o;
  o.backend = backend_choice::cpu;
  o.paths = 20'001;
  o.threads = 2;
  auto const book = reference_book();
  auto const alone = engine(test_market(), o).price(book);
  o.batch_window_us = 200'000;
  engine const batching(test_market(), o);
  // Six callers at once, a shifted copy of the book each (the ids keep their streams): under
  // load they are merged into batches; whichever, each row has the bits it has alone.
  std::vector<std::future<pricing_run>> callers;
  for (int c = 0; c < 6; ++c) {
    callers.push_back(std::async(std::launch::async, [&, c] {
      portfolio mine = book;
      std::rotate(mine.trades.begin(), mine.trades.begin() + c, mine.trades.end());
      return batching.price(mine);
    }));
  }
  std::size_t batched = 0;
  for (int c = 0; c < 6; ++c) {
    auto const run = callers[static_cast<std::size_t>(c)].get();
    REQUIRE(run.results.size() == book.trades.size());
    batched += run.summary.batch_calls > 1 ? 1 : 0;
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      std::size_t const k = (i + static_cast<std::size_t>(c)) % book.trades.size();
      INFO("caller " << c << ", " << run.results[i].id);
      CHECK(run.results[i].id == alone.results[k].id);
      CHECK(std::memcmp(&run.results[i].price, &alone.results[k].price, sizeof(double)) == 0);
      CHECK(std::memcmp(&run.results[i].std_error, &alone.results[k].std_error, sizeof(double)) == 0);
    }
  }
  WARN(batched << " of 6 callers were priced in a batch");

  o.batch_window_us = -1;
  CHECK_THROWS_AS(engine(test_market(), o), configuration_error);
  o.batch_window_us = 2'000'000;
  CHECK_THROWS_AS(engine(test_market(), o), configuration_error);
}
