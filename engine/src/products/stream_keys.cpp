#include "products/stream_keys.hpp"

#include "mcprice/kernels/rng/sobol_points.hpp"
#include "mcprice/kernels/rng/trade_key.hpp"

#include <string>

namespace mcprice::detail {

std::uint64_t stream_key(const trade& t, const engine_options& opt, int steps, int factors, int uniforms)
{
  if (opt.rng == rng_kind::pseudo) return rng::trade_key(opt.seed, t.id);
  std::int64_t const dims = steps == 0 ? 1 : rng::sobol_path_dimensions(steps, factors, uniforms);
  if (dims > rng::sobol_dimensions || steps > rng::sobol_max_steps || factors > rng::sobol_max_factors) {
    throw trade_refused("trade " + t.id + ": --rng sobol: the trade needs " + std::to_string(dims) +
                        " Sobol dimensions (" + std::to_string(steps) + " steps x " + std::to_string(factors) +
                        " bridged normals, padded to the bridge's order, + " + std::to_string(uniforms) +
                        " uniforms); the direction numbers hold " + std::to_string(rng::sobol_dimensions));
  }
  auto const replicate = static_cast<std::uint32_t>(t.replicate < 0 ? 0 : t.replicate);
  return rng::sobol_key(rng::replicate_seed(opt.seed, t.id, replicate), steps, factors);
}

}  // namespace mcprice::detail
