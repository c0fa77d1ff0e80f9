#include "mcprice/kernels/launch/kernel_selection.hpp"

#include <cctype>

namespace mcprice::kernels {
namespace {

bool word_char(char c) noexcept { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `word` occurs in `text` as a whole identifier (double_barrier is not double).
bool has_word(std::string_view text, std::string_view word) noexcept
{
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    bool const starts = at == 0 || !word_char(text[at - 1]);
    std::size_t const end = at + word.size();
    bool const ends = end == text.size() || !word_char(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

// The name and template arguments: the text before the parameter list, which is the first
// '(' outside angle brackets that does not open "(anonymous namespace)".
std::string_view name_and_arguments(std::string_view name) noexcept
{
  constexpr std::string_view anonymous = "(anonymous namespace)";
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char const c = name[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(') {
      if (name.substr(i, anonymous.size()) == anonymous) i += anonymous.size() - 1;
      else if (depth == 0) return name.substr(0, i);
    }
  }
  return name;
}

}  // namespace

kernel_traits traits_of_kernel(std::string_view demangled_name) noexcept
{
  std::string_view const head = name_and_arguments(demangled_name);
  return {has_word(head, "sobol_stream"), has_word(head, "double")};
}

bool selected(const kernel_traits& traits, const kernel_selection& selection) noexcept
{
  return (selection.quasi || !traits.quasi) && (selection.double_precision || !traits.double_precision);
}

}  // namespace mcprice::kernels
