#include "io/csv_reader.hpp"
#include "catch.hpp"
#include "mcprice/input_error.hpp"

using mcprice::detail::read_csv;

TEST_CASE("CSV records keep positions; quotes, CRLF, BOM, comments and blank lines")
{
  std::string const text =
      "\xEF\xBB\xBFid,message\r\n"
      "# a comment\r\n"
      "\r\n"
      "a, \"x, \"\"y\"\"\"\r\n"
      "  b ,\"two\nlines\"\n"
      "c,\n";
  auto const recs = read_csv(text, "f.csv");
  REQUIRE(recs.size() == 4);
  CHECK(recs[0].line == 1);
  CHECK(recs[0].fields[0].text == "id");
  CHECK(recs[1].line == 4);
  CHECK(recs[1].fields[1].text == "x, \"y\"");
  CHECK(recs[1].fields[1].column == 4);
  CHECK(recs[2].fields[0].text == "b");
  CHECK(recs[2].fields[1].text == "two\nlines");
  CHECK(recs[3].line == 7);
  REQUIRE(recs[3].fields.size() == 2);
  CHECK(recs[3].fields[1].text.empty());
}

TEST_CASE("structural CSV errors name file, line and column")
{
  try {
    (void)read_csv("id,x\nT1,\"open\n", "book.csv");
    FAIL("expected an input_error");
  } catch (const mcprice::input_error& e) {
    CHECK(e.where().file == "book.csv");
    CHECK(e.where().line == 2);
    CHECK(e.where().column == 4);
    CHECK(std::string(e.what()).find("book.csv:2:4: unterminated quoted field") == 0);
  }
  try {
    (void)read_csv("id,x\nT1,\"a\"b\n", "book.csv");
    FAIL("expected an input_error");
  } catch (const mcprice::input_error& e) {
    CHECK(e.where().line == 2);
    CHECK(e.where().column == 7);
  }
  CHECK_THROWS_AS(read_csv("id,x\nT1,a\"b\n", "book.csv"), mcprice::input_error);
}

TEST_CASE("an empty text has no records")
{
  CHECK(read_csv("", "f.csv").empty());
  CHECK(read_csv("\xEF\xBB\xBF# only a comment\n\n", "f.csv").empty());
}
