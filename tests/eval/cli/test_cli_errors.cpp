// Options that make no sense, files ripplekv must not overwrite, and two writers on one run
// folder: each is a clear error (exit 2 for bad input) naming the option or file and the fix,
// never a silently different run. Runs the built program (RIPPLEKV_BINARY) on stories260K.
#include <catch2/catch.hpp>

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "test_paths.h"
#include "test_support.h"

namespace fs = std::filesystem;
using ripplekv::test::run_command;
using ripplekv::test::shared_data;

namespace {

ripplekv::test::CommandResult run_ripplekv(const std::string& args) { return run_command(std::string(RIPPLEKV_BINARY) + " " + args); }

std::string stories() { return "--model " + shared_data("stories260K/stories260K.bin") + " --threads 1"; }

void check_refused(const std::string& args, const std::string& message) {
  INFO("ripplekv " << args);
  const auto r = run_ripplekv(args);
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.output.find(message) != std::string::npos);
  CHECK(r.output.find("terminate called") == std::string::npos);
}

}  // namespace

TEST_CASE("Options that make no sense are refused", "[cli][bad-input]") {
  const auto scratch = ripplekv::test::scratch_dir("cli_errors", "options");
  const auto profile = (scratch / "p.json").string();
  check_refused("generate " + stories() + " --prompt hi --ratio 0 --allocator ripple --selector snapkv --budget 16",
                "--ratio 0: the RippleKV ratio must be >= 1");
  check_refused("generate " + stories() + " --prompt hi --selector snapkv --allocator ripple --budget 16 --ratio 2 "
                "--method-opt ratio=8", "both given");
  check_refused("generate " + stories() + " --prompt hi --ratio 2", "--ratio is an option of the ripple allocator");
  check_refused("generate " + stories() + " --prompt hi --selector full --budget 16", "--budget 16 would be ignored");
  check_refused("generate " + stories() + " --prompt hi --selector cake --budget 64 --method-opt gamma=-1",
                "gamma=-1 must be >= 0");
  check_refused("generate " + stories() + " --prompt hi --config " + scratch.string(), "is a folder");
  check_refused("generate --model " + shared_data("stories260K/stories260K.bin") + " --prompt hi --threads 100000",
                "--threads 100000");
  check_refused("generate " + stories() + " --prompt hi --max-new-tokens 600", "exceed the model's 512-token context");
  check_refused("profile " + stories() + " --calibration " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --max-tokens 64 --kl-positions 65 --out " + profile,
                "--kl-positions 65 must be between 1 and --max-tokens (64)");
  check_refused("profile " + stories() + " --calibration " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --max-tokens 64 --batch -1 --out " + profile,
                "--batch -1");
  check_refused("profile " + stories() + " --calibration " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --max-tokens 1000 --out " + profile,
                "--max-tokens 1000 exceeds the model's 512-token context");
  check_refused("fidelity " + stories() + " --texts " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --methods snapkv,h2o,snapkv --budgets 32",
                "\"snapkv\" is listed twice");
  check_refused("fidelity " + stories() + " --texts " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --methods snapkv --budgets 32 --prompt-tokens 500 --continuation 64",
                "exceed the model's 512-token context");
  fs::remove_all(scratch);
}

TEST_CASE("A profile with a negative KL divergence is refused", "[cli][bad-input]") {
  const auto scratch = ripplekv::test::scratch_dir("cli_errors", "negative_kl");
  const auto path = scratch / "p.json";
  ripplekv::test::write_text(path, R"({"format": "ripplekv-sensitivity-profile", "version": 1,
    "model": {"num_layers": 2}, "calibration": {}, "settings": {},
    "layers": [{"layer": 0, "mean": 0.001}, {"layer": 1, "mean": -0.5}]})");
  check_refused("allocate --profile " + path.string() + " --budget 64", "layers[1].mean = -0.5 is not a KL divergence");
  fs::remove_all(scratch);
}

TEST_CASE("One writer per run folder: a second longbench on the same folder and shard is refused", "[cli][lock]") {
  const auto out = ripplekv::test::scratch_dir("cli_errors", "lock");
  // Hold the lock as a running `ripplekv longbench` would.
  const int fd = ::open((out / ".ripplekv-lock").c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const std::string pid = std::to_string(::getpid()) + "\n";
  REQUIRE(::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size()));
  const std::string args = "longbench " + stories() + " --data " + shared_data("longbench/mini") +
                           " --tasks samsum --max-samples 1 --max-input-tokens 300 --out " + out.string();
  check_refused(args, "another ripplekv process (PID " + std::to_string(::getpid()) + ") is writing this run folder");
  // A shard of the same folder has its own lock.
  auto r = run_ripplekv(args + " --shard 0/2");
  INFO(r.output);
  CHECK(r.status == 0);
  ::close(fd);  // the holder exits: the lock is gone, no stale file blocks the next run
  r = run_ripplekv(args);
  INFO(r.output);
  CHECK(r.status == 0);
  fs::remove_all(out);
}

TEST_CASE("longbench-score never overwrites score files ripplekv did not write", "[cli][bad-input]") {
  const auto root = ripplekv::test::scratch_dir("cli_errors", "score");
  const auto pred = root / "published";
  fs::create_directories(pred);
  const auto ref = fs::path(shared_data("longbench/reference_predictions/mistral-7b-instruct-v0.2-fullkv"));
  fs::copy_file(ref / "samsum.jsonl", pred / "samsum.jsonl");
  ripplekv::test::write_text(pred / "result.json", "{\"samsum\": 1.0}\n");
  // Default: the scores go beside, into <pred>-scores; the published result.json is untouched.
  auto r = run_ripplekv("longbench-score --pred " + pred.string());
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(ripplekv::test::read_text(pred / "result.json") == "{\"samsum\": 1.0}\n");
  CHECK(fs::exists(root / "published-scores" / "result.json"));
  // Rerunning into ripplekv's own score folder is fine; --out onto a foreign result.json is not.
  r = run_ripplekv("longbench-score --pred " + pred.string());
  CHECK(r.status == 0);
  check_refused("longbench-score --pred " + pred.string() + " --out " + pred.string(), "was not written by ripplekv");
  // A duplicated sample line is refused, not counted twice.
  const auto dup = root / "dup";
  fs::create_directories(dup);
  const std::string line = "{\"_id\": \"a\", \"pred\": \"x\", \"answers\": [\"x\"], \"all_classes\": null, \"length\": 1}\n";
  ripplekv::test::write_text(dup / "samsum.jsonl", line + line);
  check_refused("longbench-score --pred " + dup.string(), "_id \"a\" was already on line 1");
  fs::remove_all(root);
}

TEST_CASE("A <task>.jsonl that is a folder is an error, not silently skipped", "[cli][bad-input]") {
  const auto root = ripplekv::test::scratch_dir("cli_errors", "jsonl_dir");
  fs::create_directories(root / "samsum.jsonl");
  check_refused("longbench-score --pred " + root.string(), "samsum.jsonl: is not a file");
  fs::remove_all(root);
}

TEST_CASE("A folder given where a file belongs is a clear error, not a library message or an empty read",
          "[cli][bad-input]") {
  const auto dir = ripplekv::test::scratch_dir("cli_errors", "folder_as_file");
  const std::string d = dir.string();
  const std::string model = "--model " + shared_data("stories260K/stories260K.bin");
  check_refused("allocate --profile " + d + " --budget 64", d + ": cannot open: is a folder, not a file; expected a sensitivity profile");
  check_refused("generate " + model + " --prompt hi --selector snapkv --allocator ripple --budget 64 --method-opt profile=" + d,
                "is a folder, not a file");
  check_refused("fidelity " + model + " --texts " + d + " --methods snapkv --budgets 32 --prompt-tokens 200",
                d + ": cannot open: is a folder, not a file; expected a calibration / texts file");
  check_refused("profile " + model + " --calibration " + d + " --max-tokens 200 --out " + d + "/p.json",
                "is a folder, not a file");
  check_refused("tokenize --tokenizer " + shared_data("stories260K/tok512.model") + " --input " + d,
                "is a folder, not a file; expected a JSON-lines file (--input)");
  check_refused("generate " + model + " --prompt hi --selector snapkv --allocator profile --budget 64 --method-opt file=" + d,
                "is a folder, not a file");
  fs::remove_all(dir);
}
