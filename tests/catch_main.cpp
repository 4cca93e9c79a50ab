// Catch2's main in its own translation unit: compiled once, linked into every test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
