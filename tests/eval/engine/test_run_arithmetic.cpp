// The arithmetic a run folder records (threads, cpu_kernels) and the notes of a resume with
// another (eval/run_arithmetic.h).
#include "catch_torch.h"

#include <ATen/Parallel.h>

#include <filesystem>

#include "eval/run_arithmetic.h"
#include "models/ops/cpu_features.h"
#include "test_support.h"

using namespace ripplekv;
using namespace ripplekv::eval;
using Catch::Contains;
namespace fs = std::filesystem;

TEST_CASE("run_arithmetic: the thread count everywhere, the CPU kernels of the dtype on the CPU only",
          "[eval][run_arithmetic]") {
  const auto cpu = run_arithmetic("cpu", "bfloat16");
  CHECK(cpu.at("threads") == at::get_num_threads());
  CHECK(cpu.at("cpu_kernels").get<std::string>().rfind(std::string(ops::cpu_kernel_arithmetic(true)) + "; ATen ", 0) ==
        0);
  CHECK(run_arithmetic("cpu", "float32").at("cpu_kernels").get<std::string>().rfind(
            std::string(ops::cpu_kernel_arithmetic(false)) + "; ATen ", 0) == 0);
  CHECK(cpu_kernels_label("float16").rfind("aten; ATen ", 0) == 0);  // no kernel of ripplekv's takes float16
  const auto cuda = run_arithmetic("cuda:0", "bfloat16");
  CHECK(cuda.size() == 1);
  CHECK(cuda.contains("threads"));
}

TEST_CASE("arithmetic_changes: one note per recorded key that differs, naming the setting that matches",
          "[eval][run_arithmetic]") {
  const auto dir = test::scratch_dir("run_arithmetic", "notes");
  const nlohmann::ordered_json now = {{"threads", 2}, {"cpu_kernels", "aten+widened_bf16; ATen AVX2"}};
  CHECK(arithmetic_changes(dir, now).empty());  // no config.json: a new folder
  auto write_info = [&](const nlohmann::json& info) {
    test::write_text(dir / "config.json", nlohmann::json({{"run", nlohmann::json::object()}, {"info", info}}).dump());
  };
  write_info({{"method", "SnapKV"}});  // a folder made before either was recorded
  CHECK(arithmetic_changes(dir, now).empty());
  write_info(now);
  CHECK(arithmetic_changes(dir, now).empty());

  write_info({{"threads", 1}, {"cpu_kernels", "avx512; ATen AVX512"}});
  auto notes = arithmetic_changes(dir, now);
  REQUIRE(notes.size() == 2);
  CHECK_THAT(notes[0], Contains("started on 1 threads, resumed on 2") && Contains("(--threads 1 matches them)"));
  CHECK_THAT(notes[1], Contains("started with the CPU kernels avx512; ATen AVX512, resumed with aten+widened_bf16; ATen "
                                "AVX2") &&
                           Contains("(RIPPLEKV_CPU_ISA=avx512 on an AVX-512 CPU matches them)"));
  write_info({{"threads", 2}, {"cpu_kernels", "aten; ATen AVX2"}});
  notes = arithmetic_changes(dir, now);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("(RIPPLEKV_CPU_ISA=none matches them)"));
  write_info({{"threads", 2}, {"cpu_kernels", "avx512_bf16; ATen AVX512"}});
  notes = arithmetic_changes(dir, now);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("(a CPU with those kernels matches them)"));
  // A run on a GPU records no kernels: a CPU folder resumed there gets no kernels note.
  CHECK(arithmetic_changes(dir, {{"threads", 2}}).empty());

  std::vector<std::string> sunk;
  write_info({{"threads", 3}});
  warn_on_other_arithmetic(dir, now, [&](const std::string& note) { sunk.push_back(note); });
  REQUIRE(sunk.size() == 1);
  CHECK_THAT(sunk[0], Contains(dir.string() + ": started on 3 threads"));
  fs::remove_all(dir);
}
