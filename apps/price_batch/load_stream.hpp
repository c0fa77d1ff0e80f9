#pragma once
// The load test's job stream (groundwork for `price-batch --load-test`): a seeded sequence of
// real pricing jobs drawn from the market's GBM assets (vanillas, digitals, Asians, barriers and,
// with two or more assets, baskets), sized by a mix of classes (many small, some medium, a few
// very large) and arriving steadily, in bursts or on a ramp. Every draw is a function of the seed
// and the job's index alone (SplitMix64 counters, no library distributions), so the same seed
// gives the same stream on every machine and two runs differ only in timing.
#include "mcprice/market.hpp"
#include "mcprice/portfolio.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mcprice::load {

enum class arrival_pattern { steady, bursts, ramp };

// A class of job sizes: its share of the jobs, trades per job and paths per trade.
struct size_class {
  std::string name;
  double weight;
  int trades;
  std::int64_t paths;
};

// The default mix: 85% small (2 trades x 16,384 paths), 13% medium (8 x 65,536), 2% large (4 x
// 1,048,576).
std::vector<size_class> default_mix();

struct stream_options {
  std::uint64_t seed{7};
  std::size_t jobs{5000};
  double rate{2000.0};  // mean arrivals per second
  arrival_pattern pattern{arrival_pattern::bursts};
  std::size_t burst_size{64};  // bursts: jobs that arrive at the same instant
  std::vector<size_class> mix{default_mix()};
};

struct job {
  std::size_t index;
  double arrival_s;  // from the stream's start
  std::string size;  // its class's name
  portfolio book;
  std::int64_t paths;  // all its trades' paths
};

// Throws std::invalid_argument naming the problem (no GBM asset in the market, an empty or
// non-positive mix, a non-positive rate).
std::vector<job> make_stream(const stream_options& o, const market_data& market);

// "steady" | "bursts" | "ramp"; "name:weight:trades:paths,..." for a mix. Throw
// std::invalid_argument with the offending text.
arrival_pattern parse_pattern(const std::string& text);
std::vector<size_class> parse_mix(const std::string& text);

}  // namespace mcprice::load
