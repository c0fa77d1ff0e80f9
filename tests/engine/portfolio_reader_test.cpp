#include "mcprice/portfolio_reader.hpp"
#include "catch.hpp"
#include "mcprice/input_error.hpp"

using namespace mcprice;

namespace {
source_position error_position(const std::string& text)
{
  try {
    (void)parse_portfolio(text, "p.csv");
  } catch (const input_error& e) {
    return e.where();
  }
  return {};
}
}  // namespace

TEST_CASE("the full schema reads into trades, with defaults for empty cells")
{
  std::string const text =
      "id,product,type,underlying,weights,strike,maturity,notional,exercise,exercise_dates,averaging,"
      "strike_kind,fixings,fixing_times,barrier,barrier_kind,rebate,monitoring,payout,digital_kind,pay_at,"
      "running_extreme,paths,steps\n"
      "B1,basket,put,ABC;DEF,0.25;0.75,100,2,-3,bermudan,4,,,,,,,,,,,,,1e5,50\n"
      "A1,asian,call,ABC,,,1,,,,geometric,floating,12,0;0.5;1,,,,discrete,,,,,,\n"
      "X1,barrier,call,ABC,,100,1,,,,,,,,120,up-out,2.5,,,,,,,\n"
      "T1,touch,one-touch,ABC,,,1,,,,,,,,90,down,,,5,,hit,,,\n"
      "D1,digital,put,ABC,,95,0.5,,,,,,,,,,,,,asset,,,,\n";
  auto const p = parse_portfolio(text, "p.csv");
  REQUIRE(p.trades.size() == 5);
  const trade& b = p.trades[0];
  CHECK(b.row_error.empty());
  CHECK(b.product == product_kind::basket);
  CHECK(b.underlyings == std::vector<std::string>{"ABC", "DEF"});
  CHECK(b.weights == std::vector<double>{0.25, 0.75});
  CHECK(b.notional == -3.0);
  CHECK(b.exercise == exercise_style::bermudan);
  CHECK(*b.exercise_dates == 4);
  CHECK(*b.paths == 100000);
  CHECK(*b.steps == 50);
  const trade& a = p.trades[1];
  CHECK(a.averaging == averaging_kind::geometric);
  CHECK(a.strike_type == strike_kind::floating);
  CHECK(!a.strike);
  CHECK(a.fixing_times == std::vector<double>{0.0, 0.5, 1.0});
  CHECK(a.monitoring == monitoring_kind::discrete);
  CHECK(a.notional == 1.0);
  CHECK(*p.trades[2].barrier_type == barrier_kind::up_out);
  CHECK(p.trades[2].rebate == 2.5);
  CHECK(p.trades[3].type == option_type::one_touch);
  CHECK(p.trades[3].pay_at == payment_time::hit);
  CHECK(p.trades[3].payout == 5.0);
  CHECK(p.trades[4].digital == digital_kind::asset);
  CHECK(p.trades[4].line == 6);
}

TEST_CASE("file-level errors: unknown, repeated or missing columns and ragged rows")
{
  auto pos = error_position("id,product,strik\nT1,vanilla,100\n");
  CHECK(pos.line == 1);
  CHECK(pos.column == 12);
  pos = error_position("id,strike,strike\n");
  CHECK(pos.column == 11);
  pos = error_position("product,strike\nvanilla,1\n");
  CHECK(pos.line == 1);
  pos = error_position("id,strike\nT1,100\nT2,100,7\n");
  CHECK(pos.line == 3);
  pos = error_position("");
  CHECK(pos.file == "p.csv");
  CHECK(pos.line == 0);
}

TEST_CASE("bad values fail their row only, naming field, value and position")
{
  std::string const text =
      "id,product,type,underlying,strike,maturity\n"
      "T1,vanilla,call,ABC,abc,1\n"
      "T2,vanilla,call,ABC,100,nan\n"
      "T3,vanila,call,ABC,100,1\n"
      "T4,vanilla,call,ABC,100,1\n"
      "T4,vanilla,put,ABC,100,1\n"
      ",vanilla,put,ABC,100,1\n";
  auto const p = parse_portfolio(text, "p.csv");
  REQUIRE(p.trades.size() == 6);
  CHECK(p.trades[0].row_error == "p.csv:2:21: strike 'abc' is not a finite number");
  CHECK(p.trades[1].row_error == "p.csv:3:25: maturity 'nan' is not a finite number");
  CHECK(p.trades[2].row_error.find("p.csv:4:4: product 'vanila' is not one of: vanilla, digital") == 0);
  CHECK(p.trades[3].row_error.empty());
  CHECK(p.trades[4].row_error == "p.csv:6:1: duplicate id 'T4' (first on line 5)");
  CHECK(p.trades[5].row_error == "p.csv:7: missing id");
}

TEST_CASE("product, type, underlying and maturity have no default")
{
  auto const p = parse_portfolio(
      "id,product,type,underlying,maturity\nT1,vanilla,,ABC,1\nT2,vanilla,put,ABC,\n"
      "T3,,put,ABC,1\n",
      "p.csv");
  CHECK(p.trades[0].row_error == "p.csv:2: type is missing");
  CHECK(p.trades[1].row_error == "p.csv:3: maturity is missing");
  CHECK(p.trades[2].row_error == "p.csv:4: product is missing");
  CHECK(parse_portfolio("id,product,type,maturity\nT1,vanilla,call,1\n", "p.csv").trades[0].row_error ==
        "p.csv:2: underlying is missing");
}

TEST_CASE("the header alone gives an empty portfolio")
{
  CHECK(parse_portfolio("id,product\n", "p.csv").trades.empty());
}

TEST_CASE("a table of cells reads as the CSV with the same cells, positions by index")
{
  portfolio_table table;
  table.columns = {"id", "product", "type", "underlying", "strike", "maturity", "fixings"};
  table.rows = {{"A,\"1\"", "asian", "call", "ABC;DEF", "100.5", "1", "12"},
                {"B", "vanilla", "put", "ABC", "-5x", "0.5", ""},
                {"A,\"1\"", "vanilla", "put", "ABC", "95", "0.5", ""}};
  auto const p = read_portfolio_table(table, "<DataFrame>");
  auto const csv = parse_portfolio(
      "id,product,type,underlying,strike,maturity,fixings\n\"A,\"\"1\"\"\",asian,call,ABC;DEF,100.5,1,12\n", "p.csv");
  REQUIRE(p.trades.size() == 3);
  const trade& a = p.trades[0];
  const trade& c = csv.trades[0];
  CHECK(a.id == c.id);
  CHECK(a.row_error.empty());
  CHECK(a.product == c.product);
  CHECK(a.underlyings == c.underlyings);
  CHECK(a.strike == c.strike);
  CHECK(*a.fixings == 12);
  CHECK(a.line == 2);
  CHECK(p.trades[1].row_error == "<DataFrame>:3:5: strike '-5x' is not a finite number");
  CHECK(p.trades[2].row_error == "<DataFrame>:4:1: duplicate id 'A,\"1\"' (first on line 2)");

  portfolio_table ragged;
  ragged.columns = {"id", "product"};
  ragged.rows = {{"X"}};
  try {
    (void)read_portfolio_table(ragged, "<DataFrame>");
    FAIL("a row shorter than the header was read");
  } catch (const input_error& e) {
    CHECK(e.where().line == 2);
  }
  portfolio_table unknown;
  unknown.columns = {"id", "colour"};
  try {
    (void)read_portfolio_table(unknown, "<DataFrame>");
    FAIL("an unknown column was read");
  } catch (const input_error& e) {
    CHECK(e.where().column == 2);
  }
}
