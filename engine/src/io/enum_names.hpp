#pragma once
// The spellings of the contract's enumerated values, in one table per enum, so parsing,
// printing and "expected one of ..." messages cannot drift apart.
#include "mcprice/portfolio.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace mcprice::detail {

template <typename E>
struct enum_entry {
  std::string_view name;
  E value;
};

template <typename E, std::size_t N>
std::optional<E> parse_enum(const enum_entry<E> (&table)[N], std::string_view text)
{
  for (const auto& e : table) {
    if (e.name == text) return e.value;
  }
  return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view enum_name(const enum_entry<E> (&table)[N], E value)
{
  for (const auto& e : table) {
    if (e.value == value) return e.name;
  }
  return "?";
}

template <typename E, std::size_t N>
std::string enum_choices(const enum_entry<E> (&table)[N])
{
  std::string out;
  for (const auto& e : table) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

inline constexpr enum_entry<product_kind> product_names[] = {
    {"vanilla", product_kind::vanilla}, {"digital", product_kind::digital},   {"asian", product_kind::asian},
    {"barrier", product_kind::barrier}, {"lookback", product_kind::lookback}, {"touch", product_kind::touch},
    {"basket", product_kind::basket},   {"best_of", product_kind::best_of},   {"worst_of", product_kind::worst_of},
    {"spread", product_kind::spread},   {"autocallable", product_kind::autocallable},
    {"cliquet", product_kind::cliquet}};
inline constexpr enum_entry<option_type> option_type_names[] = {{"call", option_type::call},
                                                                {"put", option_type::put},
                                                                {"one-touch", option_type::one_touch},
                                                                {"no-touch", option_type::no_touch}};
inline constexpr enum_entry<exercise_style> exercise_names[] = {{"european", exercise_style::european},
                                                                {"american", exercise_style::american},
                                                                {"bermudan", exercise_style::bermudan}};
inline constexpr enum_entry<averaging_kind> averaging_names[] = {{"arithmetic", averaging_kind::arithmetic},
                                                                 {"geometric", averaging_kind::geometric}};
inline constexpr enum_entry<strike_kind> strike_kind_names[] = {{"fixed", strike_kind::fixed},
                                                                {"floating", strike_kind::floating}};
inline constexpr enum_entry<barrier_kind> barrier_kind_names[] = {
    {"up-out", barrier_kind::up_out},   {"up-in", barrier_kind::up_in}, {"down-out", barrier_kind::down_out},
    {"down-in", barrier_kind::down_in}, {"up", barrier_kind::up},       {"down", barrier_kind::down}};
inline constexpr enum_entry<monitoring_kind> monitoring_names[] = {{"continuous", monitoring_kind::continuous},
                                                                   {"discrete", monitoring_kind::discrete}};
inline constexpr enum_entry<digital_kind> digital_kind_names[] = {{"cash", digital_kind::cash},
                                                                  {"asset", digital_kind::asset}};
inline constexpr enum_entry<payment_time> payment_time_names[] = {{"hit", payment_time::hit},
                                                                  {"expiry", payment_time::expiry}};
inline constexpr enum_entry<knock_in_monitoring> knock_in_monitoring_names[] = {
    {"continuous", knock_in_monitoring::continuous},
    {"discrete", knock_in_monitoring::discrete},
    {"maturity", knock_in_monitoring::maturity}};
inline constexpr enum_entry<bool> yes_no_names[] = {{"yes", true}, {"no", false}};

}  // namespace mcprice::detail
