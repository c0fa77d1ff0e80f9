#include "mcprice/engine.hpp"

#include "basket_setup.hpp"
#include "european_setup.hpp"
#include "path_setup.hpp"
#include "mcprice/input_error.hpp"
#include "mcprice/memory/device_info.hpp"
#include "parallel_for.hpp"
#include "pricing_backend.hpp"
#include "result_statistics.hpp"
#include "trade_validation.hpp"

#include <chrono>
#include <optional>
#include <variant>

namespace mcprice {

struct engine::impl {
  market_data market;
  engine_options options;
  std::unique_ptr<detail::pricing_backend> backend;
  std::vector<std::string> notices;
};

namespace {

// The trades of one kernel family in a request, with what turns their sums into results.
struct family_base {
  std::vector<double> scales;
  std::vector<std::int64_t> paths;
  std::vector<std::int64_t> samples;
  std::vector<std::size_t> rows;  // input row of each trade
};

template <typename Trade>
struct family : family_base {
  std::vector<Trade> trades;
  std::int64_t blocks{0};

  void add(Trade t, std::int64_t trade_blocks, double scale, std::int64_t trade_paths, std::size_t row)
  {
    t.first_block = blocks;
    blocks += trade_blocks;
    samples.push_back(t.samples);
    trades.push_back(t);
    scales.push_back(scale);
    paths.push_back(trade_paths);
    rows.push_back(row);
  }
};

std::unique_ptr<detail::pricing_backend> choose_backend(const engine_options& opt, const market_data& market,
                                                        std::vector<std::string>& notices)
{
  if (opt.backend == backend_choice::cpu) return detail::make_cpu_backend(opt.threads);
  int const devices = usable_device_count();
  if (opt.device < 0 || opt.device >= devices) {
    std::string const why = devices == 0 ? "no usable CUDA GPU was found"
                                         : "GPU " + std::to_string(opt.device) + " does not exist (" +
                                               std::to_string(devices) + " usable)";
    if (opt.backend == backend_choice::gpu) throw configuration_error("--backend gpu: " + why);
    notices.push_back(why + "; pricing on the CPU backend");
    return detail::make_cpu_backend(opt.threads);
  }
  return detail::make_gpu_backend(opt, market, notices);
}

}  // namespace

engine::engine(market_data market, engine_options options) : impl_(std::make_unique<impl>())
{
  if (options.paths < 2 || options.paths > max_paths_per_trade) {
    throw configuration_error("paths " + std::to_string(options.paths) + " must be in [2, " +
                              std::to_string(max_paths_per_trade) + "]");
  }
  if (options.steps < 1) throw configuration_error("steps must be >= 1");
  impl_->market = std::move(market);
  impl_->options = options;
  impl_->backend = choose_backend(options, impl_->market, impl_->notices);
}

engine::~engine() = default;
engine::engine(engine&&) noexcept = default;
engine& engine::operator=(engine&&) noexcept = default;

backend_kind engine::backend() const noexcept { return impl_->backend->kind(); }
const std::string& engine::device_name() const noexcept { return impl_->backend->name(); }
const engine_options& engine::options() const noexcept { return impl_->options; }
const std::vector<std::string>& engine::notices() const noexcept { return impl_->notices; }
std::optional<memory_report> engine::memory() const { return impl_->backend->memory(); }
void engine::trim_memory() const { impl_->backend->trim_memory(); }

pricing_run engine::price(const portfolio& trades, const progress_callback& progress) const
{
  auto const start = std::chrono::steady_clock::now();
  pricing_run run;
  run.results.resize(trades.trades.size());

  // Checking trades and building their kernel records is independent per trade: large books
  // do it on several threads. Block numbers are then assigned in input order, per family.
  std::vector<std::optional<std::variant<detail::european_job, detail::path_job, detail::basket_job, detail::heston_job>>>
      jobs(trades.trades.size());
  detail::parallel_for(trades.trades.size(), [&](std::size_t i) {
    const trade& t = trades.trades[i];
    trade_result& r = run.results[i];
    r.id = t.id;
    r.message = t.row_error;
    if (r.message.empty()) r.message = detail::validate_trade(t, impl_->market);
    if (r.message.empty() && t.paths && *t.paths > max_paths_per_trade) {
      r.message = "trade " + t.id + ": paths " + std::to_string(*t.paths) + " exceeds the limit " +
                  std::to_string(max_paths_per_trade);
    }
    if (r.message.empty()) r.message = detail::unsupported_feature(t, impl_->market);
    if (!r.message.empty()) return;
    bool const heston = impl_->market.assets()[*impl_->market.find(t.underlyings.front())].model == model_kind::heston;
    if (heston) {
      jobs[i] = detail::make_heston_job(t, impl_->market, impl_->options);
      return;
    }
    switch (t.product) {
      case product_kind::vanilla:
      case product_kind::digital: jobs[i] = detail::make_european_job(t, impl_->market, impl_->options); break;
      case product_kind::basket:
      case product_kind::best_of:
      case product_kind::worst_of:
      case product_kind::spread: jobs[i] = detail::make_basket_job(t, impl_->market, impl_->options); break;
      default: jobs[i] = detail::make_path_job(t, impl_->market, impl_->options);
    }
  });

  family<european_gbm_trade> europeans;
  family<path_gbm_trade> paths;
  std::vector<path_step> grid;
  family<basket_gbm_trade> baskets;
  family<heston_trade> hestons;
  std::vector<heston_step> heston_steps;
  std::vector<basket_asset> basket_assets;
  std::vector<float> factors;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!jobs[i]) continue;
    if (auto* e = std::get_if<detail::european_job>(&*jobs[i])) {
      europeans.add(e->kernel, layout::blocks_for(e->kernel.samples, european_normals_per_sample), e->scale, e->paths, i);
    } else if (auto* h = std::get_if<detail::heston_job>(&*jobs[i])) {
      h->kernel.first_step = static_cast<std::int32_t>(heston_steps.size());
      heston_steps.insert(heston_steps.end(), h->steps.begin(), h->steps.end());
      hestons.add(h->kernel, layout::blocks_for(h->kernel.samples, path_normals_per_sample), h->scale, h->paths, i);
    } else if (auto* b = std::get_if<detail::basket_job>(&*jobs[i])) {
      b->kernel.first_asset = static_cast<std::int32_t>(basket_assets.size());
      b->kernel.first_factor = static_cast<std::int32_t>(factors.size());
      basket_assets.insert(basket_assets.end(), b->assets.begin(), b->assets.end());
      factors.insert(factors.end(), b->factor.begin(), b->factor.end());
      baskets.add(b->kernel, layout::blocks_for(b->kernel.samples, basket_normals_per_sample), b->scale, b->paths, i);
    } else {
      auto& p = std::get<detail::path_job>(*jobs[i]);
      p.kernel.first_step = static_cast<std::int32_t>(grid.size());
      grid.insert(grid.end(), p.steps.begin(), p.steps.end());
      paths.add(p.kernel, layout::blocks_for(p.kernel.samples, path_normals_per_sample), p.scale, p.paths, i);
    }
  }

  auto const priced = std::chrono::steady_clock::now();
  run.summary.prepare_seconds = std::chrono::duration<double>(priced - start).count();
  std::vector<std::pair<const family_base*, detail::family_run>> outcomes;
  if (!europeans.trades.empty()) {
    outcomes.emplace_back(&europeans, impl_->backend->run_european(europeans.trades, europeans.blocks, progress));
  }
  if (!paths.trades.empty()) {
    outcomes.emplace_back(&paths, impl_->backend->run_path(paths.trades, grid, paths.blocks, progress));
  }
  if (!hestons.trades.empty()) {
    outcomes.emplace_back(&hestons, impl_->backend->run_heston(hestons.trades, heston_steps, hestons.blocks, progress));
  }
  if (!baskets.trades.empty()) {
    outcomes.emplace_back(&baskets, impl_->backend->run_basket(baskets.trades, basket_assets, factors, baskets.blocks, progress));
  }
  auto const collected = std::chrono::steady_clock::now();
  run.summary.price_seconds = std::chrono::duration<double>(collected - priced).count();
  for (auto const& [fam, outcome] : outcomes) {
    run.summary.jobs += outcome.jobs;
    detail::parallel_for(fam->rows.size(), [&, fam = fam](std::size_t k) {
      trade_result& r = run.results[fam->rows[k]];
      auto const& o = outcome.outcomes[k];
      if (!o.error.empty()) r.message = "trade " + r.id + ": " + o.error;
      else r = detail::make_result(r.id, o.sums, fam->samples[k], fam->paths[k], fam->scales[k]);
    });
  }
  run.summary.results_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - collected).count();

  run.summary.trades = run.results.size();
  for (auto const& r : run.results) {
    if (r.status == trade_status::error) ++run.summary.failed;
    else run.summary.paths += r.paths;
  }
  run.summary.backend = impl_->backend->kind();
  run.summary.device_name = impl_->backend->name();
  run.summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace mcprice
