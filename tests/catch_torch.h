// Include this instead of <catch2/catch.hpp> in tests that use LibTorch: c10's logging
// header defines a glog-style CHECK macro that would silently replace Catch's CHECK (and
// abort on failure), so LibTorch is included first and its CHECK dropped.
#pragma once

#include <ATen/ATen.h>
#undef CHECK
#include <catch2/catch.hpp>
