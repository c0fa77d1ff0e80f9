#include "io/enum_names.hpp"

namespace mcprice {

std::string_view to_string(product_kind v) { return detail::enum_name(detail::product_names, v); }
std::string_view to_string(option_type v) { return detail::enum_name(detail::option_type_names, v); }
std::string_view to_string(exercise_style v) { return detail::enum_name(detail::exercise_names, v); }
std::string_view to_string(averaging_kind v) { return detail::enum_name(detail::averaging_names, v); }
std::string_view to_string(strike_kind v) { return detail::enum_name(detail::strike_kind_names, v); }
std::string_view to_string(barrier_kind v) { return detail::enum_name(detail::barrier_kind_names, v); }
std::string_view to_string(monitoring_kind v) { return detail::enum_name(detail::monitoring_names, v); }
std::string_view to_string(digital_kind v) { return detail::enum_name(detail::digital_kind_names, v); }
std::string_view to_string(payment_time v) { return detail::enum_name(detail::payment_time_names, v); }
std::string_view to_string(knock_in_monitoring v)
{
  return detail::enum_name(detail::knock_in_monitoring_names, v);
}

}  // namespace mcprice
