#include "mcprice/portfolio_reader.hpp"

#include "io/csv_reader.hpp"
#include "io/enum_names.hpp"
#include "io/file_text.hpp"
#include "io/text_values.hpp"
#include "mcprice/input_error.hpp"

#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>

namespace mcprice {
namespace {

using detail::quoted;

// A bad cell: the row becomes a failed trade; the others still price.
struct cell_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class cell {
 public:
  cell(const detail::csv_field& f, std::string_view column, const source_position& where)
      : field_(f), column_(column), where_(where)
  {
  }
  [[nodiscard]] const std::string& text() const { return field_.text; }

  [[nodiscard]] double number() const
  {
    auto const v = detail::parse_finite(field_.text);
    if (!v) fail("is not a finite number");
    return *v;
  }
  [[nodiscard]] std::int64_t count() const
  {
    auto const v = detail::parse_count(field_.text);
    if (!v) fail("is not a whole number >= 0");
    return *v;
  }
  template <typename E, std::size_t N>
  [[nodiscard]] E choice(const detail::enum_entry<E> (&table)[N]) const
  {
    auto const v = detail::parse_enum(table, field_.text);
    if (!v) fail("is not one of: " + detail::enum_choices(table));
    return *v;
  }
  [[nodiscard]] std::vector<double> numbers() const
  {
    std::vector<double> out;
    for (auto const part : detail::split(field_.text, ';')) {
      auto const v = detail::parse_finite(part);
      if (!v) fail("has an item " + quoted(part) + " that is not a finite number");
      out.push_back(*v);
    }
    return out;
  }
  [[nodiscard]] std::vector<std::string> names() const
  {
    std::vector<std::string> out;
    for (auto const part : detail::split(field_.text, ';')) {
      if (part.empty()) fail("has an empty name");
      out.emplace_back(part);
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& why) const
  {
    throw cell_error(where_.str() + ": " + std::string(column_) + " " + quoted(field_.text) + " " + why);
  }

 private:
  const detail::csv_field& field_;
  std::string_view column_;
  const source_position& where_;
};

using setter = std::function<void(trade&, const cell&)>;

const std::map<std::string, setter, std::less<>>& columns()
{
  static const std::map<std::string, setter, std::less<>> table = {
      {"id", [](trade& t, const cell& c) { t.id = c.text(); }},
      {"product", [](trade& t, const cell& c) { t.product = c.choice(detail::product_names); }},
      {"type", [](trade& t, const cell& c) { t.type = c.choice(detail::option_type_names); }},
      {"underlying", [](trade& t, const cell& c) { t.underlyings = c.names(); }},
      {"weights", [](trade& t, const cell& c) { t.weights = c.numbers(); }},
      {"strike", [](trade& t, const cell& c) { t.strike = c.number(); }},
      {"maturity", [](trade& t, const cell& c) { t.maturity = c.number(); }},
      {"notional", [](trade& t, const cell& c) { t.notional = c.number(); }},
      {"exercise", [](trade& t, const cell& c) { t.exercise = c.choice(detail::exercise_names); }},
      {"exercise_dates", [](trade& t, const cell& c) { t.exercise_dates = c.count(); }},
      {"averaging", [](trade& t, const cell& c) { t.averaging = c.choice(detail::averaging_names); }},
      {"strike_kind", [](trade& t, const cell& c) { t.strike_type = c.choice(detail::strike_kind_names); }},
      {"fixings", [](trade& t, const cell& c) { t.fixings = c.count(); }},
      {"fixing_times", [](trade& t, const cell& c) { t.fixing_times = c.numbers(); }},
      {"barrier", [](trade& t, const cell& c) { t.barrier = c.number(); }},
      {"barrier_kind", [](trade& t, const cell& c) { t.barrier_type = c.choice(detail::barrier_kind_names); }},
      {"rebate", [](trade& t, const cell& c) { t.rebate = c.number(); }},
      {"monitoring", [](trade& t, const cell& c) { t.monitoring = c.choice(detail::monitoring_names); }},
      {"payout", [](trade& t, const cell& c) { t.payout = c.number(); }},
      {"digital_kind", [](trade& t, const cell& c) { t.digital = c.choice(detail::digital_kind_names); }},
      {"pay_at", [](trade& t, const cell& c) { t.pay_at = c.choice(detail::payment_time_names); }},
      {"running_extreme", [](trade& t, const cell& c) { t.running_extreme = c.number(); }},
      {"observation_times", [](trade& t, const cell& c) { t.observation_times = c.numbers(); }},
      {"autocall_barrier", [](trade& t, const cell& c) { t.autocall_barrier = c.numbers(); }},
      {"coupon", [](trade& t, const cell& c) { t.coupon = c.number(); }},
      {"coupon_barrier", [](trade& t, const cell& c) { t.coupon_barrier = c.numbers(); }},
      {"memory", [](trade& t, const cell& c) { t.memory = c.choice(detail::yes_no_names); }},
      {"ki_barrier", [](trade& t, const cell& c) { t.ki_barrier = c.number(); }},
      {"ki_monitoring", [](trade& t, const cell& c) { t.ki_monitoring = c.choice(detail::knock_in_monitoring_names); }},
      {"initial_levels", [](trade& t, const cell& c) { t.initial_levels = c.numbers(); }},
      {"local_floor", [](trade& t, const cell& c) { t.local_floor = c.number(); }},
      {"local_cap", [](trade& t, const cell& c) { t.local_cap = c.number(); }},
      {"global_floor", [](trade& t, const cell& c) { t.global_floor = c.number(); }},
      {"global_cap", [](trade& t, const cell& c) { t.global_cap = c.number(); }},
      {"paths", [](trade& t, const cell& c) { t.paths = c.count(); }},
      {"steps", [](trade& t, const cell& c) { t.steps = c.count(); }},
  };
  return table;
}

std::string known_columns()
{
  std::string out;
  for (auto const& [name, set] : columns()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

struct header {
  std::vector<const setter*> setters;
  std::vector<std::string> names;
  std::size_t id_index{0};
};

header read_header(const detail::csv_record& rec, const std::string& file)
{
  header h;
  std::map<std::string, int, std::less<>> seen;
  for (std::size_t i = 0; i < rec.fields.size(); ++i) {
    auto const& f = rec.fields[i];
    source_position const where{file, rec.line, f.column};
    if (f.text.empty()) throw input_error(where, "empty column name in the header");
    auto const it = columns().find(f.text);
    if (it == columns().end()) {
      throw input_error(where, "unknown column " + quoted(f.text) + " (known columns: " + known_columns() + ")");
    }
    if (auto const [prev, fresh] = seen.emplace(f.text, f.column); !fresh) {
      throw input_error(
          where, "column " + quoted(f.text) + " appears twice (first at column " + std::to_string(prev->second) + ")");
    }
    if (f.text == "id") h.id_index = i;
    h.setters.push_back(&it->second);
    h.names.push_back(f.text);
  }
  if (seen.count("id") == 0) {
    throw input_error({file, rec.line, 0}, "the header has no 'id' column");
  }
  return h;
}

trade read_row(const detail::csv_record& rec, const header& h, const std::string& file)
{
  trade t;
  t.line = rec.line;
  if (rec.fields.size() != h.setters.size()) {
    throw input_error({file, rec.line, 0}, "row has " + std::to_string(rec.fields.size()) +
                                               " fields but the header has " + std::to_string(h.setters.size()));
  }
  t.id = rec.fields[h.id_index].text;
  // Columns without a default in the contract: a missing value must not silently become one.
  static const char* const required[] = {"product", "type", "underlying", "maturity"};
  std::vector<bool> given(std::size(required), false);
  for (std::size_t i = 0; i < rec.fields.size() && t.row_error.empty(); ++i) {
    auto const& f = rec.fields[i];
    if (f.text.empty()) continue;  // not given: the default applies
    for (std::size_t r = 0; r < std::size(required); ++r) given[r] = given[r] || h.names[i] == required[r];
    source_position const where{file, rec.line, f.column};
    try {
      (*h.setters[i])(t, cell(f, h.names[i], where));
    } catch (const cell_error& e) {
      t.row_error = e.what();
    }
  }
  if (t.row_error.empty() && t.id.empty()) {
    t.row_error = source_position{file, rec.line, 0}.str() + ": missing id";
  }
  // Autocallables and cliquets have no option side: their `type` is not used.
  bool const sideless = t.product == product_kind::autocallable || t.product == product_kind::cliquet;
  for (std::size_t r = 0; r < std::size(required) && t.row_error.empty(); ++r) {
    if (sideless && std::string_view(required[r]) == "type") continue;
    if (!given[r]) t.row_error = source_position{file, rec.line, 0}.str() + ": " + required[r] + " is missing";
  }
  return t;
}

portfolio read_records(const std::vector<detail::csv_record>& records, const std::string& source_name)
{
  if (records.empty()) throw input_error({source_name, 0, 0}, "no header row (the file is empty)");
  header const h = read_header(records.front(), source_name);

  portfolio p;
  p.source = source_name;
  std::map<std::string, int, std::less<>> first_line;
  for (std::size_t r = 1; r < records.size(); ++r) {
    trade t = read_row(records[r], h, source_name);
    if (!t.id.empty()) {
      auto const [prev, fresh] = first_line.emplace(t.id, t.line);
      if (!fresh && t.row_error.empty()) {
        t.row_error = source_position{source_name, t.line, records[r].fields[h.id_index].column}.str() +
                      ": duplicate id " + quoted(t.id) + " (first on line " + std::to_string(prev->second) + ")";
      }
    }
    p.trades.push_back(std::move(t));
  }
  return p;
}

// A row of cells as the CSV reader's record; the texts move.
detail::csv_record record_of(std::vector<std::string>& cells, int line)
{
  detail::csv_record rec;
  rec.line = line;
  rec.fields.reserve(cells.size());
  for (std::size_t c = 0; c < cells.size(); ++c) rec.fields.push_back({std::move(cells[c]), static_cast<int>(c) + 1});
  return rec;
}

}  // namespace

portfolio parse_portfolio(std::string_view text, const std::string& source_name)
{
  return read_records(detail::read_csv(text, source_name), source_name);
}

portfolio read_portfolio_table(portfolio_table table, const std::string& source_name)
{
  std::vector<detail::csv_record> records;
  records.reserve(table.rows.size() + 1);
  records.push_back(record_of(table.columns, 1));
  for (std::size_t r = 0; r < table.rows.size(); ++r) records.push_back(record_of(table.rows[r], static_cast<int>(r) + 2));
  return read_records(records, source_name);
}

portfolio read_portfolio_file(const std::string& path)
{
  return parse_portfolio(detail::read_file_text(path, "portfolio"), path);
}

}  // namespace mcprice
