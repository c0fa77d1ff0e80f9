#include "sha256.hpp"

#include "mcprice/input_error.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace mcprice::cli {
namespace {

struct md_ctx_free {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
using md_ctx = std::unique_ptr<EVP_MD_CTX, md_ctx_free>;

// Streams chunks into one SHA-256 context.
class sha256_context {
 public:
  sha256_context() : ctx_(EVP_MD_CTX_new())
  {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("SHA-256: init failed");
  }
  void add(const char* data, std::size_t n)
  {
    if (EVP_DigestUpdate(ctx_.get(), data, n) != 1) throw std::runtime_error("SHA-256: update failed");
  }
  std::string hex()
  {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md.data(), &len) != 1) throw std::runtime_error("SHA-256: final failed");
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out.push_back(digits[md[i] >> 4]);
      out.push_back(digits[md[i] & 15]);
    }
    return out;
  }

 private:
  md_ctx ctx_;
};

}  // namespace

std::string sha256_hex(std::string_view bytes)
{
  sha256_context c;
  c.add(bytes.data(), bytes.size());
  return c.hex();
}

std::string sha256_of_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error({path, 0, 0}, "cannot be read");
  sha256_context c;
  std::vector<char> buffer(std::size_t{1} << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) c.add(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw input_error({path, 0, 0}, "read failed");
  return c.hex();
}

}  // namespace mcprice::cli
