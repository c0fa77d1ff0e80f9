// price-batch's ranks on MPI (built when CMake found an MPI).
#include "mcprice/input_error.hpp"
#include "rank_world.hpp"

#include <mpi.h>

#include <cstdint>
#include <numeric>
#include <unistd.h>

namespace mcprice::cli {

namespace {

// MPI's default handler aborts the whole job on an MPI error, naming the call: no rank hangs.
class mpi_world final : public rank_world {
 public:
  mpi_world(int& argc, char**& argv)
  {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_);
    MPI_Comm_rank(node_, &local_rank_);
    MPI_Comm_size(node_, &local_size_);
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    host_ = name;
  }
  mpi_world(const mpi_world&) = delete;
  mpi_world& operator=(const mpi_world&) = delete;
  ~mpi_world() override
  {
    MPI_Comm_free(&node_);
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  const std::string& host() const override { return host_; }

  std::vector<std::string> share(const std::string& mine) override
  {
    auto const sizes = sizes_of(mine);
    auto const offsets = offsets_of(sizes);
    std::string all(static_cast<std::size_t>(offsets.back()), '\0');
    MPI_Allgatherv(mine.data(), sizes[static_cast<std::size_t>(rank_)], MPI_CHAR, all.data(), sizes.data(),
                   offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    return split(all, sizes, offsets);
  }

  std::vector<std::string> gather_to_first(const std::string& mine) override
  {
    auto const sizes = sizes_of(mine);
    auto const offsets = offsets_of(sizes);
    int const n = sizes[static_cast<std::size_t>(rank_)];
    if (rank_ != 0) {
      MPI_Gatherv(mine.data(), n, MPI_CHAR, nullptr, nullptr, nullptr, MPI_CHAR, 0, MPI_COMM_WORLD);
      return {};
    }
    std::string all(static_cast<std::size_t>(offsets.back()), '\0');
    MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    return split(all, sizes, offsets);
  }

  int from_first(int value) override
  {
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
  }

 private:
  // Every rank's byte count, on every rank. MPI counts are ints: when the ranks' bytes add up to
  // over 2 GiB (some 7 million trades) every rank throws alike, so none is left waiting.
  std::vector<int> sizes_of(const std::string& mine) const
  {
    auto const n = static_cast<std::int64_t>(mine.size());
    std::vector<std::int64_t> all(static_cast<std::size_t>(size_));
    MPI_Allgather(&n, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    std::int64_t const total = std::accumulate(all.begin(), all.end(), std::int64_t{0});
    if (total > INT32_MAX) {
      throw configuration_error("the ranks' results exceed 2 GiB (" + std::to_string(total) +
                                " bytes): split the book into several runs");
    }
    return {all.begin(), all.end()};
  }

  // Displacements of the ranks' pieces, plus the total at the end.
  static std::vector<int> offsets_of(const std::vector<int>& sizes)
  {
    std::vector<int> offsets(sizes.size() + 1, 0);
    std::partial_sum(sizes.begin(), sizes.end(), offsets.begin() + 1);
    return offsets;
  }

  static std::vector<std::string> split(const std::string& all, const std::vector<int>& sizes,
                                        const std::vector<int>& offsets)
  {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i])));
    }
    return out;
  }

  int rank_{0};
  int size_{1};
  int local_rank_{0};
  int local_size_{1};
  MPI_Comm node_{MPI_COMM_NULL};
  std::string host_;
};

}  // namespace

bool ranks_supported() { return true; }

std::unique_ptr<rank_world> join_ranks(int& argc, char**& argv)
{
  if (launcher_rank_count() == 0) return nullptr;
  return std::make_unique<mpi_world>(argc, argv);
}

}  // namespace mcprice::cli
