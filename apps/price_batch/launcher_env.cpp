#include "rank_world.hpp"

#include <cstdlib>
#include <string>

namespace mcprice::cli {

int launcher_rank_count()
{
  // Open MPI's mpirun; MPICH's Hydra and PMI-2 srun.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) {
      int const n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  // PMIx launchers (srun --mpi=pmix, prterun) set the rank; MPI tells the count.
  if (std::getenv("PMIX_RANK") != nullptr) return 1;
  return 0;
}

}  // namespace mcprice::cli
