#pragma once
// A rank's part of a run as bytes, for the gather to rank 0 under mpirun: every result and the
// summary's counts and times, doubles carried as their bits so the gathered run is the ranks'
// own to the last bit. The timeline is not carried.
#include "mcprice/results.hpp"

#include <string>

namespace mcprice::cli {

std::string encode_run(const pricing_run& run);
// Throws configuration_error when the bytes are not an encoded run (a rank of another build).
pricing_run decode_run(const std::string& bytes);

}  // namespace mcprice::cli
