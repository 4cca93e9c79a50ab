// The evaluation engine (eval/engine/engine.h): every variant's predictions and kept-token
// counts from one shared prefill equal, byte for byte, what a separate single-method run
// (greedy_generate with the method's own hooks) writes; for every registry preset, on
// stories260K with LongBench tasks and on a tiny HF model with a synthetic task.
#include "catch_torch.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

#include "core/compress/compression.h"
#include "core/compress/method_presets.h"
#include "core/ripple/sensitivity_profile.h"
#include "eval/engine/engine.h"
#include "eval/kept_tokens_log.h"
#include "eval/longbench_task.h"
#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "models/tokenizer/tokenizer.h"
#include "test_paths.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace ripplekv;
using namespace ripplekv::eval;

namespace {

// Every preset of the registry, with `window` where the method has one, at two budgets.
std::vector<CompressionSpec> all_variants(const CausalLM& model, const fs::path& dir, int64_t window,
                                          const std::vector<int64_t>& budgets) {
  SensitivityProfile profile;  // any per-layer scores, tied to this checkpoint
  profile.num_layers = model.num_layers();
  profile.weights_fingerprint = model.fingerprint();
  for (int64_t l = 0; l < profile.num_layers; ++l) profile.layers.push_back({0.1 * (l + 1), 0, 0, 0, 0, 1});
  const auto profile_path = (dir / "profile.json").string();
  write_profile_json(profile, profile_path);
  std::vector<CompressionSpec> out;
  for (const auto& p : method_presets()) {
    const std::string name = p.name;
    if (name == "full") {
      out.push_back(parse_method(name, 0));
      continue;
    }
    std::string text = name;
    if (name == "ripple") {
      text += fmt::format("@window={},ratio=4,profile={}", window, profile_path);
    } else if (name != "random" && name != "knorm" && name != "streamingllm") {
      text += fmt::format("@window={}", window);
    }
    for (auto b : budgets) out.push_back(parse_method(text, b));
  }
  out.push_back(parse_method(fmt::format("snapkv@window={},gqa=none", window), budgets.front()));
  return out;
}

// What a single-method run writes: greedy_generate with the method's hooks, one sample at a time.
void run_alone(const CausalLM& model, const Task& task, const CompressionMethod& method, const fs::path& dir,
               const std::vector<int64_t>& stops) {
  PredictionFile file(prediction_path(dir, task.name(), Shard{}));
  for (std::size_t k = 0; k < task.size(); ++k) {
    const auto prompt = task.prompt(k);
    const auto decoding = task.decoding(k);
    GenerateOptions go;
    go.max_new_tokens = decoding.max_new_tokens;
    go.min_new_tokens = decoding.min_new_tokens;
    go.stop_tokens = stops;
    for (TokenId t : decoding.extra_stop_tokens) go.stop_tokens.push_back(t);
    auto session = method.begin(static_cast<int64_t>(prompt.ids.size()));
    KVCache cache(model.num_layers());
    const auto r = greedy_generate(model, prompt.ids, cache, go, session.get());
    const CompressionReport& report = session->report();
    file.append_line(task.sample_id(k), task.record(k, task.prediction(r.tokens, r.stop_token)));
    append_kept_tokens(dir, task.name(), Shard{}, task.sample_id(k), r.prompt_tokens, report.compressed, report.kept);
  }
}

void check_engine_equals_alone(const CausalLM& model, const std::vector<const Task*>& tasks,
                               const std::vector<CompressionSpec>& specs, const fs::path& dir,
                               const std::vector<int64_t>& stops) {
  std::vector<std::unique_ptr<CompressionMethod>> methods;
  std::vector<EngineVariant> variants;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    methods.push_back(CompressionMethod::create(specs[i], model.config(), model.identity()));
    variants.push_back({methods.back()->describe(), dir / "together" / std::to_string(i), methods.back().get()});
  }
  EngineOptions o;
  o.stop_tokens = stops;
  o.progress = false;
  for (const auto* task : tasks) {
    const auto stats = run_task(model, *task, variants, o);
    CHECK(stats.samples == task->size());  // one prefill per sample for all variants
    CHECK(stats.decodes == task->size() * variants.size());
    // Nothing left to do: a second call runs nothing.
    CHECK(run_task(model, *task, variants, o).samples == 0);
  }
  std::size_t compressed_lines = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto alone_dir = dir / "alone" / std::to_string(i);
    for (const auto* task : tasks) {
      run_alone(model, *task, *methods[i], alone_dir, stops);
      INFO(variants[i].label << " on " << task->name());
      const auto together_dir = variants[i].out_dir;
      CHECK(test::read_text(prediction_path(together_dir, task->name(), Shard{})) ==
            test::read_text(prediction_path(alone_dir, task->name(), Shard{})));
      const auto kept = test::read_text(kept_tokens_path(together_dir, task->name(), Shard{}));
      CHECK(kept == test::read_text(kept_tokens_path(alone_dir, task->name(), Shard{})));
      compressed_lines += kept.find("\"compressed\":true") != std::string::npos ? 1 : 0;
    }
  }
  CHECK(compressed_lines >= specs.size() - 1);  // the budgets do compress (all but full)
}

// A task of random token prompts, to show the interface needs nothing LongBench-specific.
class RandomTokensTask final : public Task {
 public:
  RandomTokensTask(int vocab, std::size_t n, std::size_t len, int64_t new_tokens) : name_("random_tokens"), new_(new_tokens) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> tok(3, vocab - 1);
    for (std::size_t k = 0; k < n; ++k) {
      ids_.push_back(std::to_string(k));
      TokenIds p(len + 17 * k);
      for (auto& t : p) t = tok(rng);
      prompts_.push_back(p);
    }
  }
  const std::string& name() const override { return name_; }
  std::size_t size() const override { return ids_.size(); }
  const std::string& sample_id(std::size_t k) const override { return ids_.at(k); }
  TaskPrompt prompt(std::size_t k) const override {
    TaskPrompt p;
    p.ids = prompts_.at(k);
    p.original_tokens = static_cast<int64_t>(p.ids.size());
    return p;
  }
  TaskDecoding decoding(std::size_t) const override { return {new_, {}, 0}; }
  std::string prediction(const std::vector<int64_t>& generated, int64_t) const override {
    std::string s;
    for (auto t : generated) s += std::to_string(t) + " ";
    return s;
  }
  std::string record(std::size_t k, const std::string& prediction) const override {
    return nlohmann::json{{"_id", ids_.at(k)}, {"pred", prediction}}.dump();
  }

 private:
  std::string name_;
  int64_t new_;
  std::vector<std::string> ids_;
  std::vector<TokenIds> prompts_;
};

}  // namespace

TEST_CASE("engine: every preset from one prefill equals separate runs byte for byte (stories260K, LongBench)",
          "[engine]") {
  const auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  const Tokenizer tok(test::shared_data("stories260K/tok512.model"));
  const auto dir = test::scratch_dir("engine", "stories");
  SampleReadOptions read;
  // samsum stops at "\n" after a minimum length; hotpotqa generates 32 tokens.
  const auto samsum = load_task_samples(test::shared_data("longbench/mini"), find_longbench_task("samsum"), 1, false, read);
  const auto hotpot = load_task_samples(test::shared_data("longbench/mini"), find_longbench_task("hotpotqa"), 2, false, read);
  PromptOptions po;
  po.max_input_tokens = 300;
  po.context_tokens = model->config().max_position_embeddings;
  const LongBenchEngineTask t1(samsum, tok, po), t2(hotpot, tok, po);
  std::vector<int64_t> stops = model->config().eos_token_ids;
  stops.push_back(tok.bos_id());
  check_engine_equals_alone(*model, {&t1, &t2}, all_variants(*model, dir, 8, {48, 96}), dir, stops);
}

TEST_CASE("engine: every preset equals separate runs on a tiny HF model with a synthetic task", "[engine]") {
  const auto model = load_model(test::fixture("compression/model"), {});
  const auto dir = test::scratch_dir("engine", "hf");
  const RandomTokensTask task(static_cast<int>(model->config().vocab_size), 3, 120, 10);
  check_engine_equals_alone(*model, {&task}, all_variants(*model, dir, 8, {24, 48}), dir, {});
}

TEST_CASE("engine: two variants in one folder are refused - samples already written are not redone", "[engine]") {
  const auto model = load_model(test::fixture("compression/model"), {});
  const auto dir = test::scratch_dir("engine", "resume");
  const RandomTokensTask task(static_cast<int>(model->config().vocab_size), 3, 40, 4);
  const auto full = CompressionMethod::create(parse_method("full", 0), model->config());
  const auto snap = CompressionMethod::create(parse_method("snapkv@window=4", 16), model->config());
  EngineOptions o;
  o.progress = false;
  CHECK_THROWS_WITH(run_task(*model, task, {{"a", dir / "x", full.get()}, {"b", dir / "x", snap.get()}}, o),
                    Catch::Contains("two variants write to"));
  // The full-cache variant finished earlier; the new snapkv variant still needs every sample.
  // pending_samples counts what each call then prefills, reading the files without changing them.
  CHECK(pending_samples(task, {{"full", dir / "full", full.get()}}, o) == 3);
  CHECK(run_task(*model, task, {{"full", dir / "full", full.get()}}, o).decodes == 3);
  CHECK(pending_samples(task, {{"full", dir / "full", full.get()}}, o) == 0);
  CHECK(pending_samples(task, {{"full", dir / "full", full.get()}, {"snap", dir / "snap", snap.get()}}, o) == 3);
  CHECK(!fs::exists(dir / "snap"));
  {
    // Shard 1/2 owns sample 1, which the whole run's file holds: it is copied, not redone.
    EngineOptions sharded = o;
    sharded.shard = parse_shard("1/2");
    CHECK(pending_samples(task, {{"full", dir / "full", full.get()}}, sharded) == 0);
    CHECK(!fs::exists(prediction_path(dir / "full", task.name(), sharded.shard)));
  }
  const auto s = run_task(*model, task, {{"full", dir / "full", full.get()}, {"snap", dir / "snap", snap.get()}}, o);
  CHECK(s.samples == 3);
  CHECK(s.decodes == 3);
  // A torn last line (a kill mid-write) is dropped and that sample redone.
  {
    std::ofstream f(prediction_path(dir / "snap", task.name(), Shard{}), std::ios::app);
    f << "{\"_id\": \"9\", \"pr";
  }
  CHECK(pending_samples(task, {{"snap", dir / "snap", snap.get()}}, o) == 0);
  CHECK(run_task(*model, task, {{"snap", dir / "snap", snap.get()}}, o).decodes == 0);
  o.prompts_dir = dir / "prompts";
  CHECK(run_task(*model, task, {{"snap2", dir / "snap2", snap.get()}}, o).decodes == 3);
  CHECK(test::read_text(prediction_path(dir / "prompts", task.name(), Shard{})).find("\"prompt_tokens\":40") !=
        std::string::npos);
  // A real sample's line torn (a kill mid-write): pending_samples counts it as not done and
  // leaves the file as it is; run_task then redoes it.
  o.prompts_dir.clear();
  const auto snap2 = prediction_path(dir / "snap2", task.name(), Shard{});
  const auto text = test::read_text(snap2);
  const auto torn = text.substr(0, text.size() - 5);
  test::write_text(snap2, torn);
  CHECK(pending_samples(task, {{"snap2", dir / "snap2", snap.get()}}, o) == 1);
  CHECK(test::read_text(snap2) == torn);
  CHECK(run_task(*model, task, {{"snap2", dir / "snap2", snap.get()}}, o).decodes == 1);
}

TEST_CASE("engine: a shard of another count than the folder's shard files is refused before any sample runs",
          "[engine]") {
  const auto model = load_model(test::fixture("compression/model"), {});
  const auto dir = test::scratch_dir("engine", "shard_count");
  const RandomTokensTask task(static_cast<int>(model->config().vocab_size), 3, 40, 4);
  const auto full = CompressionMethod::create(parse_method("full", 0), model->config());
  const std::vector<EngineVariant> variants{{"full", dir / "full", full.get()}};
  EngineOptions o;
  o.progress = false;
  o.shard = parse_shard("0/2");
  CHECK(run_task(*model, task, variants, o).decodes == 2);
  o.shard = parse_shard("1/3");
  const auto message = "random_tokens's files of 2 shards, and this run is --shard 1/3: rerun with --shard i/2 (each i from 0 to 1)";
  CHECK_THROWS_WITH(pending_samples(task, variants, o), Catch::Contains(message));
  CHECK_THROWS_WITH(run_task(*model, task, variants, o), Catch::Contains(message));
  CHECK(shard_counts_present(dir / "full", task.name()) == std::vector<int>{2});  // nothing of 3 written
  // The same count goes on, and a whole run (which writes <task>.jsonl, not a shard's file)
  // copies the shards' lines.
  o.shard = parse_shard("1/2");
  CHECK(run_task(*model, task, variants, o).decodes == 1);
  o.shard = Shard{};
  const auto whole = run_task(*model, task, variants, o);
  CHECK(whole.decodes == 0);
  CHECK(whole.copied == 3);
}

TEST_CASE("engine: a folder switched between shards and a whole run copies finished samples, not redoing them",
          "[engine]") {
  const auto model = load_model(test::fixture("compression/model"), {});
  const auto dir = test::scratch_dir("engine", "switch");
  const RandomTokensTask task(static_cast<int>(model->config().vocab_size), 5, 40, 4);
  const auto snap = CompressionMethod::create(parse_method("snapkv@window=4", 16), model->config());
  const std::vector<EngineVariant> variants{{"snap", dir / "snap", snap.get()}};
  std::vector<std::string> ids;
  for (std::size_t k = 0; k < task.size(); ++k) ids.push_back(task.sample_id(k));
  EngineOptions o;
  o.progress = false;
  o.shard = parse_shard("0/2");  // samples 0, 2 and 4
  CHECK(run_task(*model, task, variants, o).decodes == 3);
  // A whole run copies those three in their turn and runs samples 1 and 3.
  o.shard = Shard{};
  CHECK(pending_samples(task, variants, o) == 2);
  auto s = run_task(*model, task, variants, o);
  CHECK(s.copied == 3);
  CHECK(s.decodes == 2);
  CHECK(s.samples == 2);
  const auto whole_path = prediction_path(dir / "snap", task.name(), Shard{});
  CHECK(read_prediction_ids(whole_path) == ids);  // in data order
  const auto whole = test::read_text(whole_path);
  // Shard 1/2 then finds its samples in the whole file, and the two shards merge into the
  // whole run's file, byte for byte.
  o.shard = parse_shard("1/2");
  CHECK(pending_samples(task, variants, o) == 0);
  s = run_task(*model, task, variants, o);
  CHECK(s.copied == 2);
  CHECK(s.decodes == 0);
  CHECK(read_prediction_ids(prediction_path(dir / "snap", task.name(), o.shard)) ==
        std::vector<std::string>{ids[1], ids[3]});
  CHECK(run_task(*model, task, variants, o).copied == 0);  // copied once
  merge_shards(dir / "snap", task.name(), 2, ids);
  CHECK(test::read_text(whole_path) == whole);
  // A whole run whose file is complete reads no other file: a shard file of another count
  // holding another line for sample 0 (the scoring reports such a folder) does not stop it.
  {
    auto line = nlohmann::json::parse(whole.substr(0, whole.find('\n')));
    line["made_by"] = "another run";
    test::write_text(prediction_path(dir / "snap", task.name(), parse_shard("0/3")), line.dump() + "\n");
  }
  o.shard = Shard{};
  CHECK(pending_samples(task, variants, o) == 0);
  s = run_task(*model, task, variants, o);
  CHECK(s.decodes == 0);
  CHECK(s.copied == 0);
  // A file that lacks a sample does read them, and the disagreement stops it by name.
  const auto torn = whole.substr(0, whole.rfind('\n', whole.size() - 2) + 1);  // the last line gone
  test::write_text(whole_path, torn);
  CHECK_THROWS_WITH(pending_samples(task, variants, o), Catch::Contains("hold different predictions for sample _id"));
  CHECK_THROWS_WITH(run_task(*model, task, variants, o), Catch::Contains("hold different predictions for sample _id"));
}

TEST_CASE("engine: a full disk loses no kept-token line - the sample is redone with both records", "[engine]") {
  const auto model = load_model(test::fixture("compression/model"), {});
  const auto dir = test::scratch_dir("engine", "disk_full");
  const RandomTokensTask task(static_cast<int>(model->config().vocab_size), 3, 40, 4);
  const auto snap = CompressionMethod::create(parse_method("snapkv@window=4", 16), model->config());
  EngineOptions o;
  o.progress = false;
  const auto kept = kept_tokens_path(dir / "snap", task.name(), Shard{});
  fs::create_directories(kept.parent_path());
  // /dev/full fails every write with ENOSPC, as a full disk does.
  fs::create_symlink("/dev/full", kept);
  CHECK_THROWS_WITH(run_task(*model, task, {{"snap", dir / "snap", snap.get()}}, o), Catch::Contains("disk full"));
  // The sample whose kept line failed has no prediction either: it is not finished.
  const auto pred = prediction_path(dir / "snap", task.name(), Shard{});
  CHECK((!fs::exists(pred) || test::read_text(pred).empty()));
  // Space again, and a line torn by the full disk left behind: the resumed run does every
  // sample, and every finished sample has its kept line.
  fs::remove(kept);
  { std::ofstream(kept) << "{\"_id\": \"0\", \"prompt_tok"; }
  CHECK(run_task(*model, task, {{"snap", dir / "snap", snap.get()}}, o).decodes == 3);
  const auto summary = summarize_kept_tokens(dir / "snap");
  CHECK(summary.samples == 3);
  CHECK(summary.mean_prompt_tokens == Approx((40 + 57 + 74) / 3.0));  // prompts of 40 + 17k tokens
}
