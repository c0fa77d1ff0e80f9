#pragma once
// The benchmarks on several GPUs (docs/scale-out.md): MCPRICE_BENCH_DEVICES=all|0,1,... puts
// their engines on those devices; a digest of every result's bits shows that a run on several
// GPUs priced exactly what one GPU did.
#include "mcprice/engine.hpp"
#include "mcprice/kernels/rng/trade_key.hpp"
#include "quantity.hpp"

#include <cstdlib>
#include <string>
#include <string_view>

namespace mcprice::bench {

inline void devices_from_environment(engine_options& o)
{
  const char* const v = std::getenv("MCPRICE_BENCH_DEVICES");
  if (v == nullptr || *v == '\0') return;
  if (std::string(v) == "all") o.every_device = true;
  else o.devices = cli::parse_device_list(v, "MCPRICE_BENCH_DEVICES");
}

// FNV-1a over every result's price and std error bits, in input order.
inline std::uint64_t results_digest(const pricing_run& run)
{
  std::string bytes;
  bytes.reserve(run.results.size() * 2 * sizeof(double));
  for (auto const& r : run.results) {
    bytes.append(reinterpret_cast<const char*>(&r.price), sizeof r.price);
    bytes.append(reinterpret_cast<const char*>(&r.std_error), sizeof r.std_error);
  }
  return rng::fnv1a64(std::string_view(bytes));
}

}  // namespace mcprice::bench
