#pragma once
// One result per input trade, in input order, failed trades included.
#include "mcprice/settings.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcprice {

// cancelled: the run was stopped (engine::price's cancel flag, price-batch on SIGINT/SIGTERM)
// before this trade was priced.
enum class trade_status { ok, error, cancelled };

// A Greek x notional and its Monte Carlo standard error (units in the I/O contract).
struct greek_estimate {
  double value{0.0};
  double std_error{0.0};
};

// How a trade's Greeks were estimated (docs/greeks.md): European vanillas pathwise, digitals
// by likelihood ratio (rho and theta then follow exactly from price, delta and gamma); Asians
// pathwise along the path with gamma a common-random-number difference of the pathwise delta;
// barriers, touches and lookbacks by central differences of scenarios on the same normals.
enum class greek_method { pathwise, likelihood_ratio, pathwise_bumped_gamma, central_bumps };

struct trade_greeks {
  greek_estimate delta;  // single-asset trades; multi-asset ones fill deltas, gammas, vegas
  greek_estimate gamma;
  greek_estimate vega;
  greek_estimate theta;
  greek_estimate rho;
  greek_method method{greek_method::pathwise};
  // Multi-asset trades: per underlying, in the trade's order; the cross gammas d2P/dSi dSj for
  // i < j in row-major pair order ((0,1), (0,2), ..., (1,2), ...); the response to every
  // pairwise correlation moving together (per 1.00 of correlation).
  std::vector<greek_estimate> deltas;
  std::vector<greek_estimate> gammas;
  std::vector<greek_estimate> vegas;
  std::vector<greek_estimate> cross_gammas;
  greek_estimate correlation_vega;
  [[nodiscard]] bool multi_asset() const { return !deltas.empty(); }

  // Every estimate in a fixed order (manifests record their bits): delta, gamma, vega, theta,
  // rho for a single asset; theta, rho, then deltas, gammas, vegas, cross gammas and
  // correlation vega for several.
  [[nodiscard]] std::vector<greek_estimate> all() const
  {
    if (!multi_asset()) return {delta, gamma, vega, theta, rho};
    std::vector<greek_estimate> out{theta, rho};
    for (auto const* v : {&deltas, &gammas, &vegas, &cross_gammas}) out.insert(out.end(), v->begin(), v->end());
    out.push_back(correlation_vega);
    return out;
  }
};

// An optional value kept on the heap: the interface of std::optional for what results use
// (test, ->, *, assign a value, reset), copied deeply. A trade's Greeks are 200 bytes that most
// runs never fill; inline they made every result row 320 bytes, and first touching a large
// book's rows cost milliseconds on the GPU host (docs/scale-out.md). Boxed, a row is 128.
template <typename T>
class boxed {
 public:
  boxed() = default;
  boxed(const T& v) : p_(std::make_unique<T>(v)) {}        // NOLINT: converts as std::optional does
  boxed(T&& v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT
  boxed(std::nullopt_t) {}                                 // NOLINT
  boxed(std::optional<T>&& v) : p_(v ? std::make_unique<T>(std::move(*v)) : nullptr) {}  // NOLINT
  boxed(const boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  boxed(boxed&&) noexcept = default;
  boxed& operator=(const boxed& o)
  {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  boxed& operator=(boxed&&) noexcept = default;
  ~boxed() = default;

  [[nodiscard]] bool has_value() const noexcept { return p_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  T* operator->() noexcept { return p_.get(); }
  const T* operator->() const noexcept { return p_.get(); }
  T& operator*() noexcept { return *p_; }
  const T& operator*() const noexcept { return *p_; }
  void reset() noexcept { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

// An autocallable's outcomes over the paths of its price. probabilities[j]: that it is
// redeemed at observation j (times[j], observation_times' order), the last entry at maturity
// holding every path not called before; they sum to 1. expected_life: sum of probability x time,
// in years from today. knock_in_probability: that the knock-in event happens while the note is
// alive, estimated as the price sees it (continuous monitoring: each path's Brownian-bridge
// crossing probability, so the estimate is conditional Monte Carlo, not a count of touches).
struct redemption_statistics {
  std::vector<double> times;
  std::vector<double> probabilities;
  double expected_life{0.0};
  double knock_in_probability{0.0};
};

struct trade_result {
  std::string id;
  trade_status status{trade_status::error};
  double price{0.0};      // present value x notional
  double std_error{0.0};  // of price
  double ci_low{0.0};     // 95% confidence interval
  double ci_high{0.0};
  std::int64_t paths{0};
  std::string message;  // why it failed; empty when ok
  // With engine_options::greeks, for the products that have them (docs/greeks.md); empty for
  // the others and for failed trades.
  boxed<trade_greeks> greeks;
  boxed<redemption_statistics> redemption;  // autocallables priced ok
};

// One interval of a call traced with engine_options::timeline, in seconds from the call's start.
// Host phases: "prepare" (checks and kernel records), "price" (a chunk's families in the
// backend), within it on the GPU "submit" (a family's plan, upload and job launches) and
// "collect" (its wait for the GPU), then "results". GPU spans ("job"): from a job's first
// kernel's turn on its stream to its copy-back's end, by device events whose clock is tied to the
// host's by one event recorded on an idle stream (within microseconds); "upload": a request's
// copies to the device. A stopped request adds "stop sent" (host: from the send to the end of
// its collection) and "stop copy" (GPU: the stop word's copy, from its turn to its landing).
struct timeline_span {
  std::string what;
  std::size_t chunk{0};  // pipeline chunk
  std::size_t index{0};  // job number within its family's request (GPU spans)
  double begin_seconds{0.0};
  double end_seconds{0.0};
  bool device{false};   // a GPU span
  std::size_t part{0};  // with several GPUs: which of engine_options::devices priced it
};

struct run_summary {
  std::size_t trades{0};
  std::size_t failed{0};
  std::size_t cancelled{0};
  std::int64_t paths{0};
  double wall_seconds{0.0};
  backend_kind backend{backend_kind::cpu};
  std::string device_name;  // GPU model (several models: their names), or the CPU backend's thread count
  std::size_t devices{1};   // GPUs (or CPU backends) the run priced on: several GPUs, MPI ranks
  // Where the time went: checking trades and building the kernel's trade table; the backend
  // (plan, upload, jobs, collect); turning sums into results. A large book on the GPU is a
  // pipeline of chunks whose phases overlap: each figure is then summed over the chunks, and
  // together they may exceed wall_seconds.
  double prepare_seconds{0.0};
  double price_seconds{0.0};
  double results_seconds{0.0};
  std::size_t jobs{0};                  // GPU jobs the request was cut into (0 on the CPU)
  std::size_t chunks{1};                // pipeline chunks the book was prepared and priced in
  bool greeks{false};                   // Greeks were asked for
  std::size_t without_greeks{0};        // priced trades whose product has no Greeks in this release
  std::vector<timeline_span> timeline;  // engine_options::timeline: sorted by begin
  // Calls priced together as one book (engine_options::batch_window_us): 1 when alone. A batched
  // call's counts and wall time are its own; its phases, jobs, chunks and timeline the batch's.
  std::size_t batch_calls{1};
};

struct pricing_run {
  std::vector<trade_result> results;
  run_summary summary;
};

}  // namespace mcprice
