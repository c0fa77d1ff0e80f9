#pragma once
// Term structures of the market file. Zero rates and dividend yields are continuously
// compounded and interpolated linearly in time between pillars, flat beyond them (QuantLib's
// ZeroCurve<Linear> inside the pillars). Vols are Black vols per expiry, interpolated linearly
// in total variance w(t) = sigma^2 t, flat vol before the first and after the last pillar
// (QuantLib's BlackVarianceCurve).
#include <vector>

namespace mcprice {

class rate_curve {
 public:
  rate_curve() = default;  // flat 0
  static rate_curve flat(double rate);
  // times strictly increasing and > 0; checked by the parser, which knows the file position.
  rate_curve(std::vector<double> times, std::vector<double> rates);

  [[nodiscard]] double zero_rate(double t) const;
  [[nodiscard]] double discount(double t) const;  // exp(-z(t) t)
  [[nodiscard]] bool is_flat() const noexcept { return times_.empty(); }
  [[nodiscard]] const std::vector<double>& pillar_times() const noexcept { return times_; }  // empty: flat
  [[nodiscard]] const std::vector<double>& pillar_rates() const noexcept { return rates_; }

 private:
  std::vector<double> times_;
  std::vector<double> rates_{0.0};
};

class vol_curve {
 public:
  vol_curve() = default;  // flat 0
  static vol_curve flat(double vol);
  vol_curve(std::vector<double> times, std::vector<double> vols);

  [[nodiscard]] double total_variance(double t) const;
  [[nodiscard]] double vol(double t) const;  // sqrt(w(t)/t): the Black vol to expiry t
  // Total variance must not fall with time (calendar arbitrage); the pillar where it does.
  [[nodiscard]] int first_decreasing_pillar() const;
  [[nodiscard]] const std::vector<double>& pillar_times() const noexcept { return times_; }  // empty: flat
  [[nodiscard]] const std::vector<double>& pillar_vols() const noexcept { return vols_; }

 private:
  std::vector<double> times_;
  std::vector<double> vols_{0.0};
  std::vector<double> variances_;  // total variance at each pillar
};

}  // namespace mcprice
