// SafetensorsFile::release: a loaded tensor's file pages leave the process's resident memory,
// and the tensor still reads the same bytes after (the pages fault back in from the file).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/loaders/safetensors.h"
#include "test_support.h"

using namespace ripplekv;
namespace fs = std::filesystem;

TEST_CASE("A released tensor's file pages leave resident memory and read back the same", "[loaders]") {
  const auto path = test::scratch_dir("loaders", "release") / "release.safetensors";
  const int64_t n = 16 << 20;  // 64 MiB of float32
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i % 1000) * 0.5f;
  {
    std::ostringstream h;
    h << R"({"w":{"dtype":"F32","shape":[)" << n << R"(],"data_offsets":[0,)" << 4 * n << "]}}";
    const std::string header = h.str();
    const uint64_t len = header.size();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&len), 8);
    out << header;
    out.write(reinterpret_cast<const char*>(values.data()), 4 * n);
  }
  {
    const SafetensorsFile file(path.string());
    const auto& info = file.tensors().at("w");
    const auto* data = static_cast<const float*>(file.data(info));
    REQUIRE(test::proc_status_kib("RssFile") >= 0);
    double sum = 0;
    for (int64_t i = 0; i < n; i += 1024) sum += data[i];  // touches every page
    const int64_t touched = test::proc_status_kib("RssFile");
    file.release(info);
    const int64_t released = test::proc_status_kib("RssFile");
    INFO("RssFile " << touched << " KiB after reading, " << released << " KiB after release");
    CHECK(touched - released >= 48 * 1024);  // most of the 64 MiB left
    CHECK(std::memcmp(data, values.data(), static_cast<size_t>(4 * n)) == 0);
    double again = 0;
    for (int64_t i = 0; i < n; i += 1024) again += data[i];
    CHECK(again == sum);
    // An empty tensor's release touches nothing.
    StTensorInfo empty = info;
    empty.end = empty.begin;
    file.release(empty);
    CHECK(data[n - 1] == values.back());
  }
  fs::remove(path);
}
