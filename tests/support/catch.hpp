#pragma once
// The suite builds against Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
