// The arithmetic a run folder records (threads, cpu_kernels: eval/run_arithmetic.h); the notes
// of a resume with another are tested with the run folders (test_run_state.cpp).
#include "catch_torch.h"

#include <ATen/Parallel.h>

#include "eval/run_arithmetic.h"
#include "models/ops/cpu_features.h"

using namespace ripplekv;
using namespace ripplekv::eval;

TEST_CASE("run_arithmetic: the thread count everywhere, the CPU kernels of the dtype on the CPU only",
          "[eval][run_arithmetic]") {
  const auto cpu = run_arithmetic("cpu", "bfloat16");
  CHECK(cpu.at("threads") == at::get_num_threads());
  CHECK(cpu.at("cpu_kernels").get<std::string>().rfind(std::string(ops::cpu_kernel_arithmetic(true)) + "; ATen ", 0) ==
        0);
  CHECK(run_arithmetic("cpu", "float32").at("cpu_kernels").get<std::string>().rfind(
            std::string(ops::cpu_kernel_arithmetic(false)) + "; ATen ", 0) == 0);
  CHECK(cpu_kernels_label("float16").rfind("aten; ATen ", 0) == 0);  // no kernel of ripplekv's takes float16
  // The CPU's model, as /proc/cpuinfo names it, where it names one (x86-64 Linux does).
  const auto model = cpu_model_name();
#if defined(__linux__) && defined(__x86_64__)
  CHECK_FALSE(model.empty());
#endif
  if (!model.empty()) {
    CHECK(cpu.at("cpu") == model);
    CHECK(model.front() != ' ');  // the value after "model name\t: "
    CHECK(model.find(':') == std::string::npos);
  }
  const auto cuda = run_arithmetic("cuda:0", "bfloat16");
  CHECK(cuda.size() == 1);
  CHECK(cuda.contains("threads"));
}
