#include "rank_pricing.hpp"

#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "run_wire.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>

namespace mcprice::cli {

std::string describe_failure(const std::exception_ptr& e)
{
  try {
    std::rethrow_exception(e);
  } catch (const cuda_error& x) {
    return std::string("GPU error: ") + x.what();
  } catch (const std::exception& x) {
    return std::string("error: ") + x.what();
  } catch (...) {
    return "error: an unknown exception";
  }
}

rank_run::rank_run(rank_world* world) : world_(world)
{
  if (split()) hosts_ = world_->share(world_->host());
}

std::string rank_run::placement() const
{
  if (!split()) return "";
  std::size_t const machines = std::set<std::string>(hosts_.begin(), hosts_.end()).size();
  return std::to_string(world_->size()) + " ranks on " + std::to_string(machines) +
         (machines == 1 ? " host" : " hosts");
}

std::string rank_run::prefix() const
{
  if (!split()) return "";
  return "rank " + std::to_string(world_->rank()) + " (host " + world_->host() + "): ";
}

void rank_run::settle(const std::exception_ptr& failure)
{
  auto const errors = world_->share(failure ? describe_failure(failure) : std::string());
  if (std::any_of(errors.begin(), errors.end(), [](const std::string& e) { return !e.empty(); })) fail_together(errors);
}

void rank_run::fail_together(const std::vector<std::string>& errors)
{
  // The same failure everywhere (a malformed input, a bad option) reads as in one process;
  // otherwise each failed rank is named with its host.
  bool const alike = std::all_of(errors.begin(), errors.end(), [&](const std::string& e) { return e == errors[0]; });
  std::string what;
  if (alike) {
    what = errors[0];
  } else {
    for (std::size_t r = 0; r < errors.size(); ++r) {
      if (errors[r].empty()) continue;
      if (!what.empty()) what += "\nprice-batch: ";
      what += "rank " + std::to_string(r) + " (host " + hosts_.at(r) + ") failed: " + errors[r];
    }
  }
  throw rank_failure(what, first());
}

engine_options rank_run::engine_settings(const engine_options& o, bool device_given, bool threads_given) const
{
  engine_options mine = o;
  if (!split()) return mine;
  mine.devices.clear();
  mine.every_device = false;
  if (!device_given && o.backend != backend_choice::cpu) {
    std::vector<int> gpus = o.devices;
    if (gpus.empty()) {
      for (int d = 0; d < usable_device_count(); ++d) gpus.push_back(d);
    }
    if (!gpus.empty()) mine.device = gpus[static_cast<std::size_t>(world_->local_rank()) % gpus.size()];
  }
  if (!threads_given) {
    unsigned const cores = std::max(1U, std::thread::hardware_concurrency());
    mine.threads = std::max(1U, cores / static_cast<unsigned>(std::max(1, world_->local_size())));
  }
  return mine;
}

std::vector<trade_range> rank_run::parts(const portfolio& book, const market_data& market,
                                         const engine_options& o) const
{
  std::size_t const ranks = split() ? static_cast<std::size_t>(world_->size()) : 1;
  return split_by_cost(book, market, o, ranks);
}

trade_range rank_run::mine(const std::vector<trade_range>& parts) const
{
  return parts.at(split() ? static_cast<std::size_t>(world_->rank()) : 0);
}

std::optional<pricing_run> rank_run::gather(pricing_run mine, const std::vector<trade_range>& parts, std::size_t trades)
{
  if (!split()) return mine;
  auto const bytes = world_->gather_to_first(encode_run(mine));
  if (!first()) return std::nullopt;
  std::vector<pricing_run> runs;
  runs.reserve(bytes.size());
  for (auto const& b : bytes) runs.push_back(decode_run(b));
  pricing_run run = merge_parts(std::move(runs), parts, trades);
  return run;
}

void rank_run::fail_if_injected() const
{
  const char* const r = std::getenv("MCPRICE_FAIL_RANK");
  if (split() && r != nullptr && std::to_string(world_->rank()) == r) {
    throw std::runtime_error("failure injected by MCPRICE_FAIL_RANK=" + std::string(r));
  }
}

int rank_run::agree(int status) { return split() ? world_->from_first(status) : status; }

}  // namespace mcprice::cli
