// Built when MPI was not found: price-batch is the single-process tool, and says so if a
// launcher starts several copies of it.
#include "mcprice/input_error.hpp"
#include "rank_world.hpp"

namespace mcprice::cli {

bool ranks_supported() { return false; }

std::unique_ptr<rank_world> join_ranks(int&, char**&)
{
  int const n = launcher_rank_count();
  if (n > 1) {
    throw configuration_error("started as one of " + std::to_string(n) +
                              " MPI ranks, but this price-batch was built without MPI: each rank would price "
                              "and write the whole book (install an MPI, e.g. libopenmpi-dev, and rebuild)");
  }
  return nullptr;
}

}  // namespace mcprice::cli
