#include "io/csv_reader.hpp"

#include "mcprice/input_error.hpp"

namespace mcprice::detail {
namespace {

std::string trim(std::string_view s)
{
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

class cursor {
 public:
  cursor(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  [[nodiscard]] bool done() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek() const { return text_[pos_]; }
  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] int column() const { return static_cast<int>(pos_ - line_start_) + 1; }
  [[nodiscard]] bool at_line_end() const
  {
    return done() || peek() == '\n' || (peek() == '\r' && (pos_ + 1 == text_.size() || text_[pos_ + 1] == '\n'));
  }
  [[nodiscard]] std::size_t offset() const { return pos_; }
  void advance() { ++pos_; }
  void skip_line_end()  // consumes "\n", "\r\n" or a lone trailing "\r"
  {
    if (!done() && peek() == '\r') ++pos_;
    if (!done() && peek() == '\n') ++pos_;
    ++line_;
    line_start_ = pos_;
  }
  void newline_inside_quotes()
  {
    ++line_;
    line_start_ = pos_;
  }
  [[noreturn]] void fail(const std::string& what, int line, int column) const
  {
    throw input_error({file_, line, column}, what);
  }

 private:
  std::string_view text_;
  const std::string& file_;
  std::size_t pos_{0};
  std::size_t line_start_{0};
  int line_{1};
};

csv_field read_quoted(cursor& c)
{
  int const start_line = c.line();
  int const start_col = c.column();
  c.advance();  // opening quote
  std::string text;
  for (;;) {
    if (c.done()) c.fail("unterminated quoted field (opened here)", start_line, start_col);
    char const ch = c.peek();
    c.advance();
    if (ch == '"') {
      if (!c.done() && c.peek() == '"') {
        text += '"';
        c.advance();
        continue;
      }
      break;
    }
    text += ch;
    if (ch == '\n') c.newline_inside_quotes();
  }
  while (!c.at_line_end() && (c.peek() == ' ' || c.peek() == '\t')) c.advance();
  if (!c.at_line_end() && c.peek() != ',') {
    c.fail(std::string("unexpected character '") + c.peek() + "' after a closing quote", c.line(), c.column());
  }
  return {text, start_col};
}

csv_field read_plain(cursor& c)
{
  int const start_col = c.column();
  std::string raw;
  while (!c.at_line_end() && c.peek() != ',') {
    if (c.peek() == '"') {
      c.fail("a quote inside an unquoted field (quote the whole field and double the quote)", c.line(), c.column());
    }
    raw += c.peek();
    c.advance();
  }
  return {trim(raw), start_col};
}

bool skippable_line(std::string_view text, std::size_t pos)
{
  std::size_t p = pos;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  return p >= text.size() || text[p] == '\n' || text[p] == '\r' || text[p] == '#';
}

}  // namespace

std::vector<csv_record> read_csv(std::string_view text, const std::string& file)
{
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<csv_record> records;
  cursor c(text, file);
  while (!c.done()) {
    if (skippable_line(text, c.offset())) {
      while (!c.at_line_end()) c.advance();
      c.skip_line_end();
    } else {
      csv_record rec;
      rec.line = c.line();
      for (;;) {
        while (!c.at_line_end() && (c.peek() == ' ' || c.peek() == '\t')) c.advance();
        rec.fields.push_back(!c.at_line_end() && c.peek() == '"' ? read_quoted(c) : read_plain(c));
        if (c.at_line_end()) break;
        c.advance();  // the comma
      }
      c.skip_line_end();
      records.push_back(std::move(rec));
    }
  }
  return records;
}

}  // namespace mcprice::detail
