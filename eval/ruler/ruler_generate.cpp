#include "eval/ruler/ruler_generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "eval/haystack.h"
#include "models/io/fnv1a.h"
#include "eval/ruler/sentence_split.h"

namespace ripplekv::eval {
namespace fs = std::filesystem;

namespace {

// ---- randomness -------------------------------------------------------------------------

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t fnv1a(const std::string& s) { return fnv1a64(s.data(), s.size(), kRipplekvFnvBasis); }

class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  // Uniform in [a, b], both included (Python's random.randint).
  int64_t randint(int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(g_); }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(randint(0, static_cast<int64_t>(n) - 1)); }
  double random() { return std::uniform_real_distribution<double>(0.0, 1.0)(g_); }
  uint64_t bits() { return g_(); }
  // k distinct values of [0, n), in selection order (Python's random.sample(range(n), k)).
  std::vector<std::size_t> sample(std::size_t n, std::size_t k) {
    if (k > n) throw std::invalid_argument(fmt::format("RULER generator: cannot pick {} distinct of {}", k, n));
    std::vector<std::size_t> out;
    std::map<std::size_t, std::size_t> swapped;  // sparse Fisher-Yates
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = i + below(n - i);
      const auto vj = swapped.count(j) ? swapped[j] : j;
      const auto vi = swapped.count(i) ? swapped[i] : i;
      swapped[j] = vi;
      out.push_back(vj);
    }
    return out;
  }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::mt19937_64 g_;
};

uint64_t stream_seed(uint64_t seed, const RulerTask& task, int64_t length, uint64_t stream) {
  return splitmix(splitmix(splitmix(seed) ^ fnv1a(task.name)) ^ static_cast<uint64_t>(length)) ^ splitmix(stream + 1);
}

// ---- text helpers -----------------------------------------------------------------------

// Python str.format on a template whose fields are all in `fields` (values are not rescanned).
std::string format_fields(const std::string& tmpl, const std::map<std::string, std::string>& fields) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] == '{') {
      const auto close = tmpl.find('}', i);
      if (close != std::string::npos) {
        const auto it = fields.find(tmpl.substr(i + 1, close - i - 1));
        if (it != fields.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += tmpl[i++];
  }
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  std::size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string random_upper(Rng& rng, std::size_t k) {
  std::string s;
  for (std::size_t i = 0; i < k; ++i) s += static_cast<char>('A' + rng.below(26));
  return s;
}

std::string random_lower(Rng& rng, std::size_t k) {
  std::string s;
  for (std::size_t i = 0; i < k; ++i) s += static_cast<char>('a' + rng.below(26));
  return s;
}

std::string random_uuid4(Rng& rng) {
  uint64_t hi = rng.bits(), lo = rng.bits();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                      // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                     lo & 0xFFFFFFFFFFFFULL);
}

// ---- RULER's length control ---------------------------------------------------------------

struct Generated {
  std::string text;  // input + answer prefix (the full template)
  std::vector<std::string> answers;
};
using GenerateFn = std::function<Generated(int64_t haystack, Rng& rng)>;

// Binary search over [lo, hi] for the largest haystack whose text plus `extra_tokens` fits
// (RULER's generate_samples); `lo` when none does.
int64_t search_haystack(const GenerateFn& gen, const TokenCounter& count, int64_t max_len, int64_t extra_tokens,
                        int64_t lo, int64_t hi, Rng& rng) {
  const int64_t fallback = lo;
  int64_t best = -1;
  while (lo <= hi) {
    const int64_t mid = (lo + hi) / 2;
    if (count(gen(mid, rng).text) + extra_tokens <= max_len) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best > 0 ? best : fallback;
}

// RULER's upper bound for that search: tokens per haystack unit measured on `incremental`
// units, times `slack` (3) for unlucky draws.
int64_t estimated_upper(const GenerateFn& gen, const TokenCounter& count, int64_t max_len, int64_t incremental,
                        Rng& rng) {
  const double per = static_cast<double>(count(gen(incremental, rng).text)) / static_cast<double>(incremental);
  return std::max<int64_t>(static_cast<int64_t>(static_cast<double>(max_len) / per * 3.0), incremental * 2);
}

// One sample: shrink the haystack by `incremental` until it fits.
Generated fit_sample(const GenerateFn& gen, const TokenCounter& count, int64_t max_len, int64_t extra_tokens,
                     int64_t& haystack, int64_t incremental, Rng& rng, const RulerTask& task, int64_t* length) {
  while (true) {
    auto g = gen(haystack, rng);
    *length = count(g.text) + extra_tokens;
    if (*length <= max_len) return g;
    if (haystack <= incremental) {
      throw std::invalid_argument(fmt::format(
          "RULER {}: {} tokens cannot hold this task (the smallest haystack already needs {} tokens with the "
          "answer); use a longer --lengths value",
          task.name, max_len, *length));
    }
    haystack -= incremental;
  }
}

RulerSample split_answer_prefix(const RulerTask& task, Generated g, int64_t index, int64_t length) {
  const auto key = ruler_answer_prefix(task.kind).substr(0, 10);
  const auto at = g.text.rfind(key);
  if (at == std::string::npos) throw std::logic_error("RULER generator: the answer prefix is missing");
  RulerSample s;
  s.index = index;
  s.answer_prefix = g.text.substr(at);
  s.input = g.text.substr(0, at);
  s.outputs = std::move(g.answers);
  s.length = length;
  return s;
}

const char* kNoise = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";

std::vector<int> depths() {  // np.round(np.linspace(0, 100, num=40)).astype(int)
  std::vector<int> d;
  for (int i = 0; i < 40; ++i) d.push_back(static_cast<int>(std::nearbyint(100.0 * i / 39.0)));
  return d;
}

std::string essay_text(const RulerResources& r, int64_t n) {
  if (r.essay_words.empty()) throw std::invalid_argument("RULER: the essay haystack is empty");
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += r.essay_words[static_cast<std::size_t>(i) % r.essay_words.size()];
  }
  return out;
}

// Inserts `items` between the sentences of `text` at random depths (RULER's essay haystack).
std::string insert_at_depths(const std::string& text, const std::vector<std::string>& items, Rng& rng) {
  const auto sents = split_sentences(text);
  const auto d = depths();
  if (items.size() > d.size()) throw std::invalid_argument("RULER: more needles than depths");
  std::vector<std::size_t> pos;
  for (auto i : rng.sample(d.size(), items.size())) {
    pos.push_back(static_cast<std::size_t>(static_cast<double>(sents.size()) * (d[i] / 100.0)));
  }
  std::sort(pos.begin(), pos.end());
  pos.insert(pos.begin(), 0);
  pos.push_back(sents.size());
  std::vector<std::string> parts;
  for (std::size_t i = 1; i < pos.size(); ++i) {
    std::vector<std::string> chunk(sents.begin() + static_cast<std::ptrdiff_t>(pos[i - 1]),
                                   sents.begin() + static_cast<std::ptrdiff_t>(pos[i]));
    parts.push_back(join(chunk, " "));
    if (i - 1 < items.size()) parts.push_back(items[i - 1]);
  }
  return join(parts, " ");
}

// ---- niah ------------------------------------------------------------------------------

std::string niah_value(const RulerTask&, const std::string& type, const RulerResources& r, Rng& rng) {
  if (type == "numbers") return std::to_string(rng.randint(1000000, 9999999));
  if (type == "uuids") return random_uuid4(rng);
  if (type == "words") {
    if (r.adjectives.empty() || r.nouns.empty()) throw std::invalid_argument("RULER: the word lists are empty");
    return r.adjectives[rng.below(r.adjectives.size())] + "-" + r.nouns[rng.below(r.nouns.size())];
  }
  throw std::invalid_argument(fmt::format("RULER: unknown needle type \"{}\"", type));
}

Generated niah_generate(const RulerTask& t, const RulerResources& r, int64_t n, Rng& rng) {
  const std::string needle_t = "One of the special magic {type_needle_v} for {key} is: {value}.";
  const int num_k = std::max(t.num_k, t.num_q);
  std::vector<std::string> keys, needles;
  std::vector<std::vector<std::string>> values;
  for (int i = 0; i < num_k; ++i) {
    keys.push_back(niah_value(t, t.type_k, r, rng));
    values.emplace_back();
    for (int j = 0; j < t.num_v; ++j) {
      values.back().push_back(niah_value(t, t.type_v, r, rng));
      needles.push_back(format_fields(needle_t, {{"type_needle_v", t.type_v}, {"key", keys.back()}, {"value", values.back().back()}}));
    }
  }
  rng.shuffle(needles);
  std::string context;
  if (t.haystack == "essay") {
    context = insert_at_depths(essay_text(r, n), needles, rng);
  } else {
    std::vector<std::string> sentences;
    for (int64_t i = 0; i < n; ++i) {
      sentences.push_back(t.haystack == "noise"
                              ? std::string(kNoise)
                              : format_fields(needle_t, {{"type_needle_v", t.type_v},
                                                         {"key", niah_value(t, t.type_k, r, rng)},
                                                         {"value", niah_value(t, t.type_v, r, rng)}}));
    }
    auto idx = rng.sample(static_cast<std::size_t>(n), needles.size());
    std::sort(idx.rbegin(), idx.rend());
    for (std::size_t i = 0; i < idx.size(); ++i) {
      sentences.insert(sentences.begin() + static_cast<std::ptrdiff_t>(idx[i]), needles[i]);
    }
    context = join(sentences, "\n");
  }
  const auto q = rng.sample(static_cast<std::size_t>(num_k), static_cast<std::size_t>(t.num_q));
  std::vector<std::string> queries, answers;
  for (auto i : q) {
    queries.push_back(keys[i]);
    for (const auto& v : values[i]) answers.push_back(v);
  }
  std::string query = queries.size() > 1
                          ? join(std::vector<std::string>(queries.begin(), queries.end() - 1), ", ") + ", and " + queries.back()
                          : queries.front();
  std::string tmpl = ruler_template(t.kind) + ruler_answer_prefix(t.kind);
  std::string type_v = t.type_v;
  if (t.num_q * t.num_v == 1) {  // RULER's singular wording, by plain replacement
    tmpl = replace_all(tmpl, "Some", "A");
    tmpl = replace_all(tmpl, "are all", "is");
    tmpl = replace_all(tmpl, "are", "is");
    tmpl = replace_all(tmpl, "answers", "answer");
    type_v.pop_back();
  }
  return {format_fields(tmpl, {{"type_needle_v", type_v}, {"context", context}, {"query", query}}), answers};
}

// ---- variable tracking -------------------------------------------------------------------

Generated vt_generate(const RulerTask& t, int64_t n, bool icl, Rng& rng) {
  const std::size_t k = icl ? 3 : 5;
  const int hops = t.num_hops;
  std::set<std::string> used;
  std::vector<std::vector<std::string>> vars, chains;
  for (int c = 0; c < t.num_chains; ++c) {
    vars.emplace_back();
    while (static_cast<int>(vars.back().size()) < hops + 1) {
      auto v = random_upper(rng, k);
      if (used.insert(v).second) vars.back().push_back(v);
    }
    const std::string value = icl ? "12345" : std::to_string(rng.randint(10000, 99998));
    chains.push_back({fmt::format("VAR {} = {}", vars.back()[0], value)});
    for (int j = 0; j < hops; ++j) chains.back().push_back(fmt::format("VAR {} = VAR {} ", vars.back()[j + 1], vars.back()[j]));
  }
  const std::string value = chains[0][0].substr(chains[0][0].rfind('=') + 2);
  std::vector<std::string> sentences(static_cast<std::size_t>(n), kNoise);
  for (const auto& chain : chains) {
    auto pos = rng.sample(sentences.size(), chain.size());
    std::sort(pos.begin(), pos.end());
    for (std::size_t j = 0; j < chain.size(); ++j) {
      sentences.insert(sentences.begin() + static_cast<std::ptrdiff_t>(pos[j] + j), chain[j]);
    }
  }
  const auto context = replace_all(join(sentences, "\n"), ". \n", ".\n");
  const auto tmpl = ruler_template(t.kind) + ruler_answer_prefix(t.kind);
  return {format_fields(tmpl, {{"context", context}, {"query", value}, {"num_v", std::to_string(hops + 1)}}), vars[0]};
}

std::string vt_randomize_icl(std::string icl, int hops, Rng& rng) {
  std::istringstream ss(icl);
  std::vector<std::string> words;
  for (std::string w; ss >> w;) words.push_back(w);
  const std::vector<std::string> targets(words.end() - std::min<std::ptrdiff_t>(hops + 1, static_cast<std::ptrdiff_t>(words.size())), words.end());
  for (const auto& item : targets) icl = replace_all(icl, item, random_upper(rng, item.size()));
  return replace_all(icl, "12345", std::to_string(rng.randint(10000, 99998)));
}

// ---- common words ---------------------------------------------------------------------------

std::vector<std::string> cwe_words(const RulerResources& r) {
  std::set<std::string> all(r.nouns.begin(), r.nouns.end());
  all.insert(r.adjectives.begin(), r.adjectives.end());
  all.insert(r.verbs.begin(), r.verbs.end());
  return {all.begin(), all.end()};
}

std::pair<std::string, std::vector<std::string>> cwe_example(const std::vector<std::string>& words, int64_t num_words,
                                                             int common_repeats, int uncommon_repeats, int common_nums,
                                                             Rng& rng) {
  if (num_words > static_cast<int64_t>(words.size())) {
    throw std::invalid_argument(fmt::format(
        "RULER cwe: {} distinct words needed, the word lists hold {} (RULER then reads english_words.json, which "
        "is not available); use a shorter length for cwe",
        num_words, words.size()));
  }
  std::vector<std::string> picked;
  for (auto i : rng.sample(words.size(), static_cast<std::size_t>(num_words))) picked.push_back(words[i]);
  const std::vector<std::string> common(picked.begin(), picked.begin() + std::min<int64_t>(common_nums, num_words));
  std::vector<std::string> list;
  for (int i = 0; i < common_repeats; ++i) list.insert(list.end(), common.begin(), common.end());
  for (int i = 0; i < uncommon_repeats; ++i) list.insert(list.end(), picked.begin() + static_cast<std::ptrdiff_t>(common.size()), picked.end());
  rng.shuffle(list);
  std::string context;
  for (std::size_t i = 0; i < list.size(); ++i) context += fmt::format("{}{}. {}", i ? " " : "", i + 1, list[i]);
  return {context, common};
}

Generated cwe_generate(const RulerTask& t, const std::vector<std::string>& words, int64_t max_seq, int64_t n, Rng& rng) {
  const auto tmpl = ruler_template(t.kind) + ruler_answer_prefix(t.kind);
  const bool short_ctx = max_seq < 4096;
  auto shot = short_ctx ? cwe_example(words, 20, 3, 1, t.num_cw, rng) : cwe_example(words, 40, 10, 3, t.num_cw, rng);
  auto main = short_ctx ? cwe_example(words, n, 6, 1, t.num_cw, rng)
                        : cwe_example(words, n, t.freq_cw, t.freq_ucw, t.num_cw, rng);
  const std::map<std::string, std::string> f{{"num_cw", std::to_string(t.num_cw)}, {"query", ""}};
  auto with = [&](const std::string& ctx) {
    auto m = f;
    m["context"] = ctx;
    return format_fields(tmpl, m);
  };
  std::string shot_answer;
  for (std::size_t i = 0; i < shot.second.size(); ++i) shot_answer += fmt::format("{}{}. {}", i ? " " : "", i + 1, shot.second[i]);
  return {with(shot.first) + " " + shot_answer + "\n" + with(main.first), main.second};
}

// ---- frequent words --------------------------------------------------------------------------

double zeta(double s) {  // Riemann zeta for s > 1: direct sum plus an Euler-Maclaurin tail
  const int n = 100000;
  double sum = 0;
  for (int k = n; k >= 1; --k) sum += std::pow(static_cast<double>(k), -s);
  const double N = n;
  return sum + std::pow(N, 1 - s) / (s - 1) - 0.5 * std::pow(N, -s) + s / 12.0 * std::pow(N, -s - 1);
}

Generated fwe_generate(const RulerTask& t, int64_t vocab_size, int64_t num_words, Rng& rng) {
  std::set<std::string> vs;
  while (static_cast<int64_t>(vs.size()) < vocab_size) vs.insert(random_lower(rng, 6));
  std::vector<std::string> vocab(vs.begin(), vs.end());
  rng.shuffle(vocab);
  vocab[0] = "...";  // the top rank is noise
  const double z = zeta(t.alpha);
  std::vector<std::string> words;
  for (std::size_t k = 1; k <= vocab.size(); ++k) {
    const auto c = static_cast<int64_t>(static_cast<double>(num_words) * std::pow(static_cast<double>(k), -t.alpha) / z);
    for (int64_t i = 0; i < c; ++i) words.push_back(vocab[k - 1]);
  }
  rng.shuffle(words);
  const auto tmpl = ruler_template(t.kind) + ruler_answer_prefix(t.kind);
  return {format_fields(tmpl, {{"context", join(words, " ")}, {"query", ""}}), {vocab[1], vocab[2], vocab[3]}};
}

std::vector<std::string> read_word_list(const fs::path& path) {
  std::ifstream f(path);
  if (!f) {
    throw std::invalid_argument(fmt::format(
        "{}: missing; RULER's word lists come from wonderwords: run scripts/get_ruler_data.sh, or pass --words DIR",
        path.string()));
  }
  std::vector<std::string> out;
  // wonderwords: readlines(), then rstrip() of each line (leading spaces and case are kept).
  for (std::string line; std::getline(f, line);) {
    const auto e = line.find_last_not_of(" \t\r\n\f\v");
    out.push_back(e == std::string::npos ? std::string() : line.substr(0, e + 1));
  }
  if (out.empty()) throw std::invalid_argument(fmt::format("{}: no words", path.string()));
  return out;
}

}  // namespace

RulerResources load_ruler_resources(const fs::path& essay_dir, const fs::path& words_dir,
                                    const std::vector<const RulerTask*>& tasks) {
  bool essays = false, words = false;
  for (const auto* t : tasks) {
    essays |= t->kind == RulerKind::kNiah && t->haystack == "essay";
    words |= (t->kind == RulerKind::kNiah && (t->type_k == "words" || t->type_v == "words")) || t->kind == RulerKind::kCommonWords;
  }
  RulerResources r;
  if (essays) {
    const std::string text = read_essay_haystack(essay_dir);
    // re.sub(r'\s+', " ", essay).split(" ")
    std::string word;
    bool in_space = false;
    for (char c : text) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
      if (space) {
        if (!in_space) {
          r.essay_words.push_back(word);
          word.clear();
        }
        in_space = true;
      } else {
        word += c;
        in_space = false;
      }
    }
    r.essay_words.push_back(word);
  }
  if (words) {
    r.nouns = read_word_list(words_dir / "nounlist.txt");
    r.adjectives = read_word_list(words_dir / "adjectivelist.txt");
    r.verbs = read_word_list(words_dir / "verblist.txt");
  }
  return r;
}

std::vector<RulerSample> generate_ruler_samples(const RulerTask& t, const RulerResources& r,
                                                const TokenCounter& count, const RulerGenerateOptions& o) {
  if (t.kind == RulerKind::kQa) (void)find_ruler_task(t.name);  // throws the reason
  if (o.num_samples < 1) throw std::invalid_argument("--samples must be >= 1");
  const int64_t max_seq = o.max_seq_length;
  const int64_t ttg = t.tokens_to_generate;
  Rng search_rng(stream_seed(o.seed, t, max_seq, ~0ULL));
  std::vector<RulerSample> out;
  auto sample_rng = [&](int64_t k) { return Rng(stream_seed(o.seed, t, max_seq, static_cast<uint64_t>(k))); };
  // Each sample from its own stream, starting at the searched haystack size and shrinking by
  // `inc` until it fits.
  auto emit = [&](const GenerateFn& gen, int64_t n, int64_t inc) {
    for (int64_t k = 0; k < o.num_samples; ++k) {
      auto rng = sample_rng(k);
      int64_t length = 0, used = n;
      auto g = fit_sample(gen, count, max_seq, ttg, used, inc, rng, t, &length);
      out.push_back(split_answer_prefix(t, std::move(g), k, length));
      out.back().haystack = used;
      out.back().haystack_searched = n;
    }
  };

  if (t.kind == RulerKind::kNiah) {
    int64_t inc = t.haystack == "essay" ? 500 : 25;
    if (t.haystack != "essay" && max_seq < 4096) inc = 5;
    const GenerateFn gen = [&](int64_t n, Rng& rng) { return niah_generate(t, r, n, rng); };
    const auto n = search_haystack(gen, count, max_seq, ttg, inc, estimated_upper(gen, count, max_seq, inc, search_rng), search_rng);
    emit(gen, n, inc);
  } else if (t.kind == RulerKind::kVariableTracking) {
    // The few-shot example: the same task in <= 500 tokens, 3-letter names, value 12345.
    const GenerateFn icl_gen = [&](int64_t n, Rng& rng) { return vt_generate(t, n, true, rng); };
    const auto icl_n = search_haystack(icl_gen, count, 500, 0, 5, estimated_upper(icl_gen, count, 500, 5, search_rng), search_rng);
    int64_t icl_len = 0, icl_used = icl_n;
    auto icl = fit_sample(icl_gen, count, 500, 0, icl_used, 5, search_rng, t, &icl_len);
    const std::string icl_text = icl.text + " " + join(icl.answers, " ") + "\n";
    const int64_t example_tokens = count(icl_text);
    const int64_t inc = max_seq < 4096 ? 5 : 10;
    const GenerateFn gen = [&](int64_t n, Rng& rng) { return vt_generate(t, n, false, rng); };
    const auto n = search_haystack(gen, count, max_seq, example_tokens + ttg, inc,
                                   estimated_upper(gen, count, max_seq, inc, search_rng), search_rng);
    const GenerateFn with_icl = [&](int64_t m, Rng& rng) {
      auto g = vt_generate(t, m, false, rng);
      g.text = vt_randomize_icl(icl_text, t.num_hops, rng) + "\n" + g.text;
      return g;
    };
    emit(with_icl, n, inc);
  } else if (t.kind == RulerKind::kCommonWords) {
    auto words = cwe_words(r);
    search_rng.shuffle(words);
    const GenerateFn gen = [&](int64_t n, Rng& rng) { return cwe_generate(t, words, max_seq, n, rng); };
    // RULER estimates tokens per word from a 4,096-word list, then searches up to twice that.
    const auto probe_n = std::min<int64_t>(4096, static_cast<int64_t>(words.size()));
    const double per = static_cast<double>(count(gen(probe_n, search_rng).text)) / static_cast<double>(probe_n);
    const int64_t hi = std::max<int64_t>(static_cast<int64_t>(std::floor(static_cast<double>(max_seq) / per)) * 2, 20);
    const auto n = search_haystack(gen, count, max_seq, ttg, 10, std::min<int64_t>(hi, static_cast<int64_t>(words.size())),
                                   search_rng);
    emit(gen, n, 10);
  } else if (t.kind == RulerKind::kFreqWords) {
    const int64_t max_len = max_seq - ttg;
    if (max_len < 100) throw std::invalid_argument(fmt::format("RULER fwe: {} tokens is too short", max_seq));
    const int64_t vocab_size = max_len / 50;
    const int64_t inc = std::max<int64_t>(1, max_len / 32);
    if (vocab_size < 4) throw std::invalid_argument(fmt::format("RULER fwe: {} tokens is too short", max_seq));
    // Grow from max_len / 6 words until the text reaches max_len, then step back once.
    int64_t n = max_len / 6;
    while (count(fwe_generate(t, vocab_size, n, search_rng).text) < max_len) n += inc;
    n -= inc;
    for (int64_t k = 0; k < o.num_samples; ++k) {
      auto rng = sample_rng(k);
      int64_t m = n;
      auto g = fwe_generate(t, vocab_size, m, rng);
      while (count(g.text) > max_len && m > inc) {
        m -= inc;
        g = fwe_generate(t, vocab_size, m, rng);
      }
      const int64_t length = count(g.text) + ttg;
      if (length > max_seq) throw std::invalid_argument(fmt::format("RULER fwe: {} tokens is too short", max_seq));
      out.push_back(split_answer_prefix(t, std::move(g), k, length));
      out.back().haystack = m;
      out.back().haystack_searched = n;
    }
  }
  // Two identical samples would count one case twice: a seed collision or a haystack too small to vary.
  std::map<std::string, int64_t> seen;
  for (const auto& s : out) {
    const auto [it, fresh] = seen.emplace(s.input, s.index);
    if (!fresh) {
      throw std::invalid_argument(fmt::format(
          "RULER {} at {} tokens: samples {} and {} are identical (a seed collision, or a length too short for the "
          "task to vary); use another --seed or a longer length",
          t.name, max_seq, it->second, s.index));
    }
  }
  return out;
}

}  // namespace ripplekv::eval
