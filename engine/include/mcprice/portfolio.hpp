#pragma once
// Trades as read from the portfolio file, before any pricing decision. A row that could not
// be read keeps its id and line and carries the reason in row_error: it is reported, never
// dropped.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcprice {

enum class product_kind {
  vanilla,
  digital,
  asian,
  barrier,
  lookback,
  touch,
  basket,
  best_of,
  worst_of,
  spread,
  autocallable,
  cliquet
};
enum class option_type { call, put, one_touch, no_touch };
enum class exercise_style { european, american, bermudan };
enum class averaging_kind { arithmetic, geometric };
enum class strike_kind { fixed, floating };
enum class barrier_kind { up_out, up_in, down_out, down_in, up, down };
enum class monitoring_kind { continuous, discrete };
enum class digital_kind { cash, asset };
enum class payment_time { hit, expiry };
enum class knock_in_monitoring { continuous, discrete, maturity };

std::string_view to_string(product_kind v);
std::string_view to_string(option_type v);
std::string_view to_string(exercise_style v);
std::string_view to_string(averaging_kind v);
std::string_view to_string(strike_kind v);
std::string_view to_string(barrier_kind v);
std::string_view to_string(monitoring_kind v);
std::string_view to_string(digital_kind v);
std::string_view to_string(payment_time v);
std::string_view to_string(knock_in_monitoring v);

struct trade {
  std::string id;
  int line{0};  // line in the portfolio file, for messages
  product_kind product{product_kind::vanilla};
  option_type type{option_type::call};
  std::vector<std::string> underlyings;
  std::vector<double> weights;
  std::optional<double> strike;
  double maturity{0.0};
  double notional{1.0};
  exercise_style exercise{exercise_style::european};
  std::optional<std::int64_t> exercise_dates;
  averaging_kind averaging{averaging_kind::arithmetic};
  strike_kind strike_type{strike_kind::fixed};
  std::optional<std::int64_t> fixings;
  std::vector<double> fixing_times;
  std::optional<double> barrier;
  std::optional<barrier_kind> barrier_type;
  double rebate{0.0};
  monitoring_kind monitoring{monitoring_kind::continuous};
  double payout{1.0};
  digital_kind digital{digital_kind::cash};
  payment_time pay_at{payment_time::expiry};
  std::optional<double> running_extreme;
  // Autocallables: observation times (the last is maturity), autocall and coupon barriers as
  // fractions of the initial level (one value, or one per observation; coupon barriers default
  // to the autocall barriers), the coupon per observation, the knock-in, and the initial levels
  // of a seasoned trade (default: today's spots).
  std::vector<double> observation_times;
  std::vector<double> autocall_barrier;
  double coupon{0.0};
  std::vector<double> coupon_barrier;
  bool memory{false};
  std::optional<double> ki_barrier;
  knock_in_monitoring ki_monitoring{knock_in_monitoring::maturity};
  std::vector<double> initial_levels;
  // Cliquets: bounds on each period's return and on their sum (not given: no bound).
  std::optional<double> local_floor, local_cap, global_floor, global_cap;
  std::optional<std::int64_t> paths;
  std::optional<std::int64_t> steps;
  // --rng sobol: which of the run's independent scramblings this row prices (the engine sets it
  // on its own copies of the trade; -1: none, as read).
  std::int32_t replicate{-1};

  std::string row_error;  // non-empty: the row could not be read; the reason, with position
};

struct portfolio {
  std::string source;
  std::vector<trade> trades;
};

}  // namespace mcprice
