// Batching across callers on the GPU (engine_options::batch_window_us, docs/graphs.md): callers
// whose trades are merged into one engine call each get the bits they get alone, with graphs on
// and off, with and without Greeks.
#include "catch.hpp"
#include "mcprice/engine.hpp"
#include "pricing_cases.hpp"
#include "result_bits.hpp"

#include <algorithm>
#include <future>
#include <vector>

using namespace mcprice;
using namespace mcprice::testing;

namespace {

// One row against another, prices, errors and every Greek, bit for bit.
void check_row_bits(const trade_result& got, const trade_result& want)
{
  INFO(got.id);
  CHECK(got.id == want.id);
  CHECK(got.status == want.status);
  CHECK(same_bits(got.price, want.price));
  CHECK(same_bits(got.std_error, want.std_error));
  CHECK(same_redemption_bits(got, want));
  CHECK(same_greek_bits(got, want));
}

}  // namespace

TEST_CASE("GPU batching: eight callers at once get the bits they get alone, graphs on and off, with Greeks", "[gpu]")
{
  auto const m = test_market();
  auto const book = reference_book();
  for (graph_mode const g : {graph_mode::off, graph_mode::on}) {
    for (bool const greeks : {false, true}) {
      INFO("graphs " << (g == graph_mode::on) << ", greeks " << greeks);
      engine_options o;
      o.backend = backend_choice::gpu;
      o.paths = 16'384;
      o.graphs = g;
      o.greeks = greeks;
      auto const alone = engine(m, o).price(book);
      o.batch_window_us = 50'000;
      engine const batching(m, o);
      std::size_t batched = 0;
      // Three rounds: with graphs on, a merged book's shape is captured on its second coming.
      for (int round = 0; round < 3; ++round) {
        std::vector<std::future<pricing_run>> callers;
        for (int c = 0; c < 8; ++c) {
          callers.push_back(std::async(std::launch::async, [&, c] {
            portfolio mine = book;
            std::rotate(mine.trades.begin(), mine.trades.begin() + c % 4, mine.trades.end());
            return batching.price(mine);
          }));
        }
        for (int c = 0; c < 8; ++c) {
          auto const run = callers[static_cast<std::size_t>(c)].get();
          REQUIRE(run.results.size() == book.trades.size());
          batched += run.summary.batch_calls > 1 ? 1 : 0;
          for (std::size_t i = 0; i < run.results.size(); ++i) {
            check_row_bits(run.results[i], alone.results[(i + static_cast<std::size_t>(c % 4)) % book.trades.size()]);
          }
        }
      }
      WARN(batched << " of 24 calls were priced in a batch");
    }
  }
}
