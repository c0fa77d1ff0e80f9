#pragma once
// SHA-256 digests (OpenSSL's libcrypto) of the bytes a run read and wrote, for run manifests.
#include <string>
#include <string_view>

namespace mcprice::cli {

// Lower-case hex of the SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

// The same of a file's contents; throws input_error when it cannot be read.
std::string sha256_of_file(const std::string& path);

}  // namespace mcprice::cli
