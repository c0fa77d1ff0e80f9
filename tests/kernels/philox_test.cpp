// The host Philox mirror against cuRAND's published behaviour (values from cuRAND itself).
#include "catch.hpp"
#include "mcprice/kernels/rng/host_normal_stream.hpp"
#include "mcprice/kernels/rng/trade_key.hpp"

#include <cmath>

using namespace mcprice::rng;

TEST_CASE("philox mirror reproduces curand4 for seed 42, offset 0")
{
  host_philox_stream s0(42, 0);
  u32x4 const a = s0.next_uint4();
  CHECK(a.x == 0x9ceaf053U);
  CHECK(a.y == 0x77f5493bU);
  CHECK(a.z == 0x12bf50adU);
  CHECK(a.w == 0x5742b3d7U);

  host_philox_stream s1(42, 1);
  u32x4 const b = s1.next_uint4();
  CHECK(b.x == 0x02933769U);
  CHECK(b.y == 0x2051e913U);
  CHECK(b.z == 0x3b68b038U);
  CHECK(b.w == 0xb62c409cU);
}

TEST_CASE("philox mirror's first curand_normal4 of subsequence 0")
{
  host_philox_stream s(42, 0);
  f32x4 const n = s.next_normal4();
  float const expected[4] = {0.194018796F, -0.97018975F, 1.92392647F, -1.23562098F};
  float const got[4] = {n.x, n.y, n.z, n.w};
  for (int i = 0; i < 4; ++i) CHECK(std::abs(got[i] - expected[i]) < 2e-6F);
}

TEST_CASE("an offset that is not a multiple of four shifts the words like curand4")
{
  host_philox_stream whole(42, 3, 0);
  u32x4 const w0 = whole.next_uint4();
  u32x4 const w1 = whole.next_uint4();
  host_philox_stream shifted(42, 3, 2);
  u32x4 const s = shifted.next_uint4();
  CHECK(s.x == w0.z);
  CHECK(s.y == w0.w);
  CHECK(s.z == w1.x);
  CHECK(s.w == w1.y);
  host_philox_stream skipped(42, 3, 4);
  CHECK(skipped.next_uint4().x == w1.x);
}

TEST_CASE("the counter carries across all four words")
{
  u32x4 c{0xFFFFFFFFU, 0xFFFFFFFFU, 0xFFFFFFFFU, 7U};
  increment(c);
  CHECK(c.x == 0U);
  CHECK(c.y == 0U);
  CHECK(c.z == 0U);
  CHECK(c.w == 8U);
}

TEST_CASE("trade keys depend on seed and id only, and differ between nearby ids")
{
  CHECK(trade_key(42, "T1") == trade_key(42, "T1"));
  CHECK(trade_key(42, "T1") != trade_key(42, "T2"));
  CHECK(trade_key(42, "T1") != trade_key(43, "T1"));
  static_assert(trade_key(1, "x") == trade_key(1, "x"), "usable at compile time");
}
