#pragma once
// A long request stopped part-way (reliability.md, Signals): the book, and the time from the
// stop to the call's return.
#include "mcprice/engine.hpp"
#include "pricing_cases.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace mcprice::testing {

// Six Asians of 252 fixings on the flat asset: at 2^30 paths each takes about 0.6 s on an H200.
inline portfolio long_asian_book()
{
  portfolio book;
  for (int i = 0; i < 6; ++i) {
    trade t = make_trade("asian-" + std::to_string(i), product_kind::asian, option_type::call, "FLAT", 95 + i, 1);
    t.fixings = 252;
    book.trades.push_back(t);
  }
  return book;
}

struct stopped_run {
  pricing_run run;
  double after_stop{0.0};  // seconds from the stop to the call's return
};

// Prices the book and raises the call's cancel flag `after` into it.
inline stopped_run price_stopped(const engine& eng, const portfolio& book, std::chrono::milliseconds after)
{
  using clock = std::chrono::steady_clock;
  std::atomic<bool> cancel{false};
  clock::time_point stopped_at{};
  auto stopper = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(after);
    stopped_at = clock::now();
    cancel.store(true);
  });
  stopped_run s;
  s.run = eng.price(book, {}, &cancel);
  auto const returned_at = clock::now();
  stopper.get();
  s.after_stop = std::chrono::duration<double>(returned_at - stopped_at).count();
  return s;
}

}  // namespace mcprice::testing
