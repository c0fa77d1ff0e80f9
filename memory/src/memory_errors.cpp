#include "mcprice/memory/memory_errors.hpp"

#include <utility>

namespace mcprice {

out_of_memory::out_of_memory(const std::string& resource, std::size_t requested, std::size_t reserved,
                             std::size_t limit)
    : std::runtime_error(resource + ": out of device memory allocating " + std::to_string(requested) + " bytes (" +
                         std::to_string(reserved) + " reserved, limit " +
                         (limit == 0 ? std::string("none") : std::to_string(limit)) + ")"),
      requested_(requested)
{
}

scratch_cap_exceeded::scratch_cap_exceeded(std::string job, std::size_t requested, std::size_t cap, std::size_t in_use)
    : std::runtime_error("job " + job + ": scratch request of " + std::to_string(requested) +
                         " bytes exceeds its cap of " + std::to_string(cap) + " bytes (" + std::to_string(in_use) +
                         " in use)"),
      job_(std::move(job)),
      requested_(requested),
      cap_(cap),
      in_use_(in_use)
{
}

}  // namespace mcprice

namespace mcprice {

scratch_busy::scratch_busy(const std::string& job, std::size_t needed, bool alone)
    : std::runtime_error("job " + job + ": " + std::to_string(needed) + " bytes of scratch do not fit under the pool limit " +
                         (alone ? "beside other jobs; it retries alone" : "now; it retries")),
      needed_(needed),
      alone_(alone)
{
}

}  // namespace mcprice
