#include "runtime/lent_lru.hpp"
#include "catch.hpp"

#include <memory>
#include <string>
#include <vector>

using namespace mcprice::detail;

namespace {
// Move-only, as a captured graph is.
using entry = std::unique_ptr<int>;
using cache = lent_lru<std::string, entry>;

entry make(int v) { return std::make_unique<int>(v); }
}  // namespace

TEST_CASE("lent_lru: an idle entry is lent to one user at a time and comes back most recently used", "[graphs]")
{
  cache c(4, 1000);
  std::vector<entry> gone;
  CHECK_FALSE(c.take("a").has_value());  // a miss: the user makes one
  REQUIRE(c.make_room(100, gone));
  c.give_back("a", make(1), 100);
  auto a = c.take("a");
  REQUIRE(a.has_value());
  CHECK(**a == 1);
  CHECK_FALSE(c.take("a").has_value());  // lent: a second user of the key makes its own
  REQUIRE(c.make_room(100, gone));
  c.give_back("a", make(2), 100);
  c.give_back("a", std::move(*a), 100);
  CHECK(c.statistics().entries == 2);
  CHECK(c.statistics().lent == 0);
  CHECK(c.statistics().bytes == 200);
  CHECK(c.statistics().hits == 1);
  CHECK(c.statistics().misses == 2);
  CHECK(gone.empty());
}

TEST_CASE("lent_lru: the count and the byte budget evict idle entries, least recently used first", "[graphs]")
{
  cache c(3, 1000);
  std::vector<entry> gone;
  for (int i = 0; i < 3; ++i) {
    REQUIRE(c.make_room(300, gone));
    c.give_back("k" + std::to_string(i), make(i), 300);
  }
  auto k0 = c.take("k0");  // k0 used again: k1 is now the oldest
  c.give_back("k0", std::move(*k0), 300);
  REQUIRE(c.make_room(300, gone));  // 1200 bytes would break the budget: k1 goes
  REQUIRE(gone.size() == 1);
  CHECK(*gone[0] == 1);
  c.give_back("k3", make(3), 300);
  CHECK(c.statistics().bytes == 900);
  CHECK(c.statistics().entries == 3);
  REQUIRE(c.make_room(10, gone));  // the count: k2, the oldest now, goes
  REQUIRE(gone.size() == 2);
  CHECK(*gone[1] == 2);
  c.give_back("small", make(9), 10);
  CHECK_FALSE(c.take("k1").has_value());
  CHECK(c.take("k0").has_value());
  CHECK(c.statistics().evictions == 2);
  CHECK(c.statistics().peak_bytes == 900);
}

TEST_CASE("lent_lru: lent entries count against the budget and are never evicted; a new one is refused", "[graphs]")
{
  cache c(2, 500);
  std::vector<entry> gone;
  REQUIRE(c.make_room(300, gone));      // lent, never given back yet
  CHECK_FALSE(c.make_room(300, gone));  // 600 bytes lent would break the budget
  CHECK_FALSE(c.make_room(600, gone));  // larger than the budget alone
  REQUIRE(c.make_room(200, gone));
  CHECK_FALSE(c.make_room(1, gone));  // the count
  CHECK(gone.empty());
  CHECK(c.statistics().refusals == 3);
  CHECK(c.statistics().bytes == 500);
  c.forget(300);  // its user failed: the room is free again
  CHECK(c.statistics().entries == 1);
  CHECK(c.statistics().bytes == 200);
  REQUIRE(c.make_room(300, gone));
}

TEST_CASE("lent_lru: a trim evicts every idle entry and keeps the lent ones", "[graphs]")
{
  cache c(8, 10000);
  std::vector<entry> gone;
  for (int i = 0; i < 3; ++i) {
    REQUIRE(c.make_room(100, gone));
    c.give_back("k", make(i), 100);
  }
  auto lent = c.take("k");
  REQUIRE(lent.has_value());
  auto const trimmed = c.evict_idle();
  CHECK(trimmed.size() == 2);
  CHECK(c.statistics().entries == 1);
  CHECK(c.statistics().bytes == 100);
  c.give_back("k", std::move(*lent), 100);
  CHECK(c.take("k").has_value());
}
