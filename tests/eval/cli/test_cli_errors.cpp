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
  {  // a bad kernel cap in the environment: refused at start, naming the variable and its values
    const auto r = run_command("RIPPLEKV_CPU_ISA=avx9 " + std::string(RIPPLEKV_BINARY) + " generate " + stories() +
                               " --prompt hi");
    INFO(r.output);
    CHECK(r.status != 0);
    CHECK(r.output.find("RIPPLEKV_CPU_ISA=avx9 is not one of avx512_bf16, avx512, avx2, none") != std::string::npos);
  }
  {  // a sentencepiece library of another version (garbage ids): refused at load, naming the fix
    const auto r = run_command("RIPPLEKV_SPM_LIB=" + std::string(RIPPLEKV_FAKE_SPM) + " " +
                               std::string(RIPPLEKV_BINARY) + " generate " + stories() + " --prompt hi");
    INFO(r.output);
    CHECK(r.status != 0);
    CHECK(r.output.find("sentencepiece answered the id 1467033344 outside [0, 512)") != std::string::npos);
    CHECK(r.output.find("put the build machine's copy first on LD_LIBRARY_PATH") != std::string::npos);
  }
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
}

TEST_CASE("A profile with a negative KL divergence is refused", "[cli][bad-input]") {
  const auto scratch = ripplekv::test::scratch_dir("cli_errors", "negative_kl");
  const auto path = scratch / "p.json";
  ripplekv::test::write_text(path, R"({"format": "ripplekv-sensitivity-profile", "version": 1,
    "model": {"num_layers": 2}, "calibration": {}, "settings": {},
    "layers": [{"layer": 0, "mean": 0.001}, {"layer": 1, "mean": -0.5}]})");
  check_refused("allocate --profile " + path.string() + " --budget 64", "layers[1].mean = -0.5 is not a KL divergence");
  // score=text_median on a profile without per-text means (written before they were saved).
  ripplekv::test::write_text(path, R"({"format": "ripplekv-sensitivity-profile", "version": 1,
    "model": {"num_layers": 2}, "calibration": {}, "settings": {},
    "layers": [{"layer": 0, "mean": 0.001}, {"layer": 1, "mean": 0.5}]})");
  check_refused("allocate --profile " + path.string() + " --budget 64 --score text_median",
                "--score text_median with --profile " + path.string() + ": score=text_median needs the per-text means");
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
}

TEST_CASE("A <task>.jsonl that is a folder is an error, not silently skipped", "[cli][bad-input]") {
  const auto root = ripplekv::test::scratch_dir("cli_errors", "jsonl_dir");
  fs::create_directories(root / "samsum.jsonl");
  check_refused("longbench-score --pred " + root.string(), "samsum.jsonl: is not a file");
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
}

TEST_CASE("Damaged JSON, binary and overflowing inputs name the file and the key, never a library message",
          "[cli][bad-input]") {
  const auto dir = ripplekv::test::scratch_dir("cli_errors", "raw_messages");
  const std::string d = dir.string();
  const std::string model = "--model " + shared_data("stories260K/stories260K.bin") + " --threads 1";
  const std::string qwen_tok = ripplekv::test::fixture("bpe/qwen2/tokenizer.json");
  auto no_library_text = [](const std::string& args) {
    const auto r = run_ripplekv(args);
    INFO("ripplekv " << args << "\n" << r.output);
    CHECK(r.status != 0);
    CHECK(r.output.find("[json.exception") == std::string::npos);
    CHECK(r.output.find("filesystem error") == std::string::npos);
    CHECK(r.output.find("basic_") == std::string::npos);
    CHECK(r.output.find("frame #") == std::string::npos);
  };

  // A sharded checkpoint whose index is a folder, or names a shard with a number.
  fs::copy(ripplekv::test::fixture("hf/llama_linear"), dir / "idx_dir", fs::copy_options::recursive);
  fs::remove(dir / "idx_dir/model.safetensors.index.json");
  fs::create_directories(dir / "idx_dir/model.safetensors.index.json");
  check_refused("generate --model " + d + "/idx_dir --tokenizer " + qwen_tok + " --prompt hi --max-new-tokens 1",
                "model.safetensors.index.json: cannot open: is a folder, not a file");
  fs::copy(ripplekv::test::fixture("hf/llama_linear"), dir / "idx_num", fs::copy_options::recursive);
  ripplekv::test::write_text(dir / "idx_num/model.safetensors.index.json",
                             R"({"weight_map": {"lm_head.weight": 5}})");
  check_refused("generate --model " + d + "/idx_num --tokenizer " + qwen_tok + " --prompt hi --max-new-tokens 1",
                "weight_map[\"lm_head.weight\"] = 5 must be the name of a .safetensors file");

  // tokenizer.json with a value of the wrong type: the place in the file is named.
  {
    std::string t = ripplekv::test::read_text(qwen_tok);
    const auto at = t.find("\"special\": true");
    REQUIRE(at != std::string::npos);
    t.replace(at, 15, "\"special\": \"yes\"");
    ripplekv::test::write_text(dir / "tok.json", t);
  }
  ripplekv::test::write_text(dir / "in.jsonl", "\"hello\"\n");
  check_refused("tokenize --tokenizer " + d + "/tok.json --input " + d + "/in.jsonl",
                "tok.json: at /added_tokens/0/special: type must be boolean, but is string");
  ripplekv::test::write_text(dir / "empty.model", "");
  check_refused("tokenize --tokenizer " + d + "/empty.model --input " + d + "/in.jsonl", "the tokenizer file is empty");

  // Profiles: an array, a value of the wrong type, layers out of order, another version.
  ripplekv::test::write_text(dir / "arr.json", "[{}]");
  check_refused("allocate --profile " + d + "/arr.json --budget 64", "arr.json: expected a JSON object");
  const std::string head = R"({"format": "ripplekv-sensitivity-profile", "version": 1, "model": {"num_layers": 2},
    "calibration": {}, "settings": {}, "layers": )";
  ripplekv::test::write_text(dir / "type.json", head + R"([{"layer": 0, "mean": "x"}, {"layer": 1, "mean": 1}]})");
  check_refused("allocate --profile " + d + "/type.json --budget 64", "at /layers/0/mean: type must be number");
  ripplekv::test::write_text(dir / "order.json", head + R"([{"layer": 1, "mean": 1}, {"layer": 0, "mean": 1}]})");
  check_refused("allocate --profile " + d + "/order.json --budget 64", "layers[0] has \"layer\": 1");
  no_library_text("allocate --profile " + d + "/type.json --budget 64");

  // Output paths of the wrong kind, before any work.
  ripplekv::test::write_text(dir / "afile", "");
  check_refused("longbench " + model + " --data " + shared_data("longbench/mini") + " --tasks samsum --out " + d +
                    "/afile",
                "--out " + d + "/afile: is a file, not a folder");
  check_refused("table --runs " + d + " --out " + d + "/afile", "is a file, not a folder");
  check_refused("profile " + model + " --calibration " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --max-tokens 64 --kl-positions 8 --out " + d,
                "is a folder; give a file path");
  check_refused("profile " + model + " --calibration " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --max-tokens 64 --kl-positions 8 --out /dev/null",
                "is not a regular file");

  // Multipliers: a sum that overflows (used to hang), binary bytes (used to print them raw).
  ripplekv::test::write_text(dir / "big.json", "[1e308, 1e308, 1]");
  check_refused("generate " + model + " --prompt hi --selector snapkv --budget 40 --method-opt window=4 "
                "--allocator profile --method-opt file=" + d + "/big.json",
                "their sum overflows");
  // One huge multiplier among small ones: scaled, not overflowed (this one used to hang).
  ripplekv::test::write_text(dir / "huge.json", "[1e308, 1, 1, 1, 1]");
  {
    const auto r = run_ripplekv("generate " + model + " --prompt 'Once upon a time there was a little girl who liked "
                                "to play in the park with her friends' --max-new-tokens 2 --selector snapkv --budget 8 "
                                "--method-opt window=4 --allocator profile --method-opt file=" + d + "/huge.json");
    INFO(r.output);
    CHECK(r.status == 0);
  }
  check_refused("profile " + model + " --calibration " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --max-tokens 64 --kl-positions 64 --positions context --out " + d + "/pc.json",
                "--max-tokens 64 leaves none");
  ripplekv::test::write_text(dir / "bin.txt", std::string("\x01\x02\x00\x7f", 4));
  check_refused("generate " + model + " --prompt hi --selector snapkv --budget 40 --method-opt window=4 "
                "--allocator profile --method-opt file=" + d + "/bin.txt",
                "bin.txt:1: \"\\u0001\\u0002\\u0000\\u007f\" is not a number");

  // Values that used to be read in part or ignored.
  check_refused("generate " + model + " --prompt hi --selector snapkv --allocator ripple --budget 16 --ratio nan",
                "--ratio nan: the RippleKV ratio must be >= 1");
  check_refused("generate " + model + " --prompt hi --allocator nonsense", "--allocator nonsense: unknown");
  check_refused("fidelity " + model + " --texts " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --methods snapkv --budgets 16abc",
                "--budgets: \"16abc\" is not a budget");
  check_refused("fidelity " + model + " --texts " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --methods snapkv --budgets 16 --max-texts 0",
                "--max-texts 0: must be >= 1");
  check_refused("fidelity " + model + " --texts " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --methods snapkv,,h2o --budgets 16",
                "an empty item in the method list");
  check_refused("fidelity " + model + " --texts " + shared_data("longbench/raw/multi_news.jsonl") +
                    " --methods snapkv@window=4,window=5 --budgets 16",
                "option window given twice");
  check_refused("longbench " + model + " --data " + shared_data("longbench/mini") + " --tasks samsum,,lcc --out " + d +
                    "/lb",
                "an empty item in the list");
  ripplekv::test::write_text(dir / "ok.json", head + R"([{"layer": 0, "mean": 1}, {"layer": 1, "mean": 2}]})");
  check_refused("allocate --profile " + d + "/ok.json --budget 64 --ratio 2abc", "\"2abc\" is not a number");
  check_refused("allocate --profile " + d + "/ok.json --budget 4611686018427387904", "must be between 1 and 2^40");
  check_refused("table --runs " + d + " --out " + d + "/t --published-model x", "--published-model needs --published");
  check_refused("table --runs " + d + " --out " + d + "/t --pool-across-tasks", "it needs --pool");
  check_refused("table --runs " + d + " --out " + d + "/t --resamples 5", "--resamples 5: give 100 to 10000000");
}

TEST_CASE("A damaged cached profile is measured again, not a fatal error", "[cli][bad-input]") {
  const auto dir = ripplekv::test::scratch_dir("cli_errors", "profile_cache");
  const std::string args = "generate --model " + shared_data("stories260K/stories260K.bin") +
                           " --threads 1 --prompt 'Once upon a time there was a little girl who liked to play in the "
                           "park with her friends every day' --max-new-tokens 2 --selector snapkv --allocator ripple "
                           "--budget 8 --method-opt window=4 --method-opt calibration=" +
                           shared_data("longbench/raw/multi_news.jsonl") +
                           " --method-opt calibration_samples=1 --method-opt calibration_max_tokens=32 "
                           "--method-opt kl_positions=4 --method-opt profile_cache=" + dir.string();
  auto r = run_ripplekv(args);
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::vector<fs::path> cached;
  for (const auto& e : fs::directory_iterator(dir)) cached.push_back(e.path());
  REQUIRE(cached.size() == 1);
  ripplekv::test::write_text(cached[0], "[1]");
  r = run_ripplekv(args);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("is damaged") != std::string::npos);
  CHECK(ripplekv::test::read_text(cached[0]).find("ripplekv-sensitivity-profile") != std::string::npos);
}
