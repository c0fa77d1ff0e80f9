#pragma once
// How a large GPU book is cut into pipeline chunks (engine_options::pipeline_chunk_trades).
#include <cstddef>
#include <vector>

namespace mcprice::detail {

// Chunk boundaries (0, ..., n) of a book of n trades. Chunks grow from `first` trades by
// doubling up to a cap, so the GPU starts after a small chunk and each chunk is prepared while
// the ones before it are priced; the last two are 2 x first and first, so what is left after
// the GPU's last job (the last chunk's results) is small (a book of exactly 3 x first: three
// chunks of first). One chunk when first is 0 or the book
// is smaller than 3 x first.
std::vector<std::size_t> pipeline_bounds(std::size_t n, std::size_t first);

// Trades a thread prepares (checks and kernel records) or turns into results in a pipelined
// chunk; the first chunk is prepared on the calling thread alone, which starts at once.
inline constexpr std::size_t pipeline_trades_per_thread = 128;

}  // namespace mcprice::detail
