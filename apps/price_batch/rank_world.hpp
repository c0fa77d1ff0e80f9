#pragma once
// The processes of one price-batch run under an MPI launcher (docs/scale-out.md): who this rank
// is, where it runs, and the few collective steps a split run needs. Built on MPI when the build
// found it (mpi_world.cpp); without MPI, joining finds a single process (single_world.cpp).
#include <memory>
#include <string>
#include <vector>

namespace mcprice::cli {

class rank_world {
 public:
  virtual ~rank_world() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual int local_rank() const = 0;  // among the ranks on this host
  [[nodiscard]] virtual int local_size() const = 0;
  [[nodiscard]] virtual const std::string& host() const = 0;
  // Every rank's text, by rank, on every rank: the checkpoint where ranks learn of each other's
  // failures, so that none waits forever for one that gave up.
  [[nodiscard]] virtual std::vector<std::string> share(const std::string& mine) = 0;
  // Every rank's bytes, by rank, on rank 0; empty elsewhere.
  [[nodiscard]] virtual std::vector<std::string> gather_to_first(const std::string& mine) = 0;
  // Rank 0's value, on every rank.
  [[nodiscard]] virtual int from_first(int value) = 0;
};

// The run's ranks when an MPI launcher started this process (mpirun, srun: its environment says
// so), initialising MPI; nullptr for a plain start, which stays a single process without
// touching MPI. Throws configuration_error when a launcher started several ranks of a build
// without MPI (each would price and write the whole book).
std::unique_ptr<rank_world> join_ranks(int& argc, char**& argv);

// Whether this build can split a run across MPI ranks.
bool ranks_supported();

// The environment variables by which launchers tell a process its rank count (0: none set).
int launcher_rank_count();

}  // namespace mcprice::cli
