#include "io/json_positions.hpp"

#include <nlohmann/json.hpp>

#include <iterator>
#include <vector>

namespace mcprice::detail {
namespace {

// An input iterator over the text that publishes how far the parser has read.
class counting_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  counting_iterator(const char* p, const char** seen) : p_(p), seen_(seen) {}
  reference operator*() const
  {
    *seen_ = p_;
    return *p_;
  }
  counting_iterator& operator++()
  {
    ++p_;
    return *this;
  }
  counting_iterator operator++(int)
  {
    counting_iterator old = *this;
    ++p_;
    return old;
  }
  bool operator==(const counting_iterator& o) const { return p_ == o.p_; }
  bool operator!=(const counting_iterator& o) const { return p_ != o.p_; }

 private:
  const char* p_;
  const char** seen_;
};

std::string escape_token(const std::string& key)
{
  std::string out;
  for (char const c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

class recorder : public nlohmann::json_sax<nlohmann::json> {
 public:
  recorder(std::string_view text, const char** seen, std::map<std::string, std::size_t>& out)
      : text_(text), seen_(seen), out_(out)
  {
  }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override
  {
    stack_.back().key = escape_token(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct frame {
    std::string pointer;
    bool array{false};
    std::size_t index{0};
    std::string key;
  };

  std::string child_pointer() const
  {
    if (stack_.empty()) return "";
    const frame& f = stack_.back();
    return f.pointer + "/" + (f.array ? std::to_string(f.index) : f.key);
  }
  void mark(const std::string& pointer)
  {
    std::size_t const offset = static_cast<std::size_t>(*seen_ - text_.data());
    out_.emplace(pointer, offset);
  }
  void advance_parent()
  {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  bool value()
  {
    mark(child_pointer());
    advance_parent();
    return true;
  }
  bool open(bool array)
  {
    std::string p = child_pointer();
    mark(p);
    stack_.push_back({std::move(p), array, 0, {}});
    return true;
  }
  bool close()
  {
    stack_.pop_back();
    advance_parent();
    return true;
  }

  std::string_view text_;
  const char** seen_;
  std::map<std::string, std::size_t>& out_;
  std::vector<frame> stack_;
};

}  // namespace

text_position position_of(std::string_view text, std::size_t offset)
{
  text_position pos{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

json_positions::json_positions(std::string_view text) : text_(text)
{
  const char* seen = text.data();
  recorder sax(text, &seen, positions_);
  counting_iterator first(text.data(), &seen);
  counting_iterator last(text.data() + text.size(), &seen);
  nlohmann::json::sax_parse(first, last, &sax);
}

text_position json_positions::at(const std::string& pointer) const
{
  std::string p = pointer;
  for (;;) {
    if (auto const it = positions_.find(p); it != positions_.end()) return position_of(text_, it->second);
    if (p.empty()) return {0, 0};
    p.erase(p.rfind('/'));
  }
}

}  // namespace mcprice::detail
