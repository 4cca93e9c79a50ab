// Where one decode step's time goes, op by op: a scoped RecordFunction observer that sums the
// wall time and count of each top-level operator called on this thread (ops called from inside
// another op are part of their caller's time). The project's own kernels record themselves
// ("ripplekv::linear", "ripplekv::decode_attention", "ripplekv::rms_norm_token",
// "ripplekv::rope_qk_token", "ripplekv::kv_cache_append"); whatever is inside no recorded op is
// the glue around them (tensor views, the model's loop, the framework).
#pragma once

#include <ATen/record_function.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace ripplekv::bench {

class OpProfile {
 public:
  OpProfile() {
    table().clear();  // each profile counts its own steps only
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&OpProfile::enter, &OpProfile::leave).scopes({at::RecordScope::FUNCTION}));
  }
  ~OpProfile() { at::removeCallback(handle_); }
  OpProfile(const OpProfile&) = delete;
  OpProfile& operator=(const OpProfile&) = delete;

  // Prints the ops by total time per step, and the share of the step they cover.
  static void print(double step_ms, int steps, int64_t seq_rows, std::ostream& out) {
    std::vector<std::pair<std::string, Entry>> rows(table().begin(), table().end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
    double total_us = 0;
    int64_t calls = 0;
    for (const auto& r : rows) total_us += r.second.us, calls += r.second.count;
    out << fmt::format("# op profile of one decode step of {} row(s) ({:.2f} ms): {:.0f} top-level calls (ATen and ripplekv::), "
                       "{:.2f} ms inside them ({:.0f}%), {:.2f} ms outside (glue, framework)\n",
                       seq_rows, step_ms, static_cast<double>(calls) / steps, total_us / 1e3 / steps,
                       100 * total_us / 1e3 / steps / step_ms, step_ms - total_us / 1e3 / steps);
    for (const auto& [name, e] : rows) {
      if (e.us / steps < 5) continue;
      out << fmt::format("#   {:<40} {:>6.1f} calls {:>8.3f} ms  {:>5.1f} us/call\n", name,
                         static_cast<double>(e.count) / steps, e.us / 1e3 / steps, e.us / e.count);
    }
    table().clear();
  }

 private:
  struct Entry {
    int64_t count = 0;
    double us = 0;
  };
  struct Context : at::ObserverContext {
    std::chrono::steady_clock::time_point start;
    bool top = false;
  };
  static std::map<std::string, Entry>& table() {
    static thread_local std::map<std::string, Entry> t;
    return t;
  }
  static int& depth() {
    static thread_local int d = 0;
    return d;
  }
  static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction&) {
    auto ctx = std::make_unique<Context>();
    ctx->top = depth()++ == 0;
    ctx->start = std::chrono::steady_clock::now();
    return ctx;
  }
  static void leave(const at::RecordFunction& fn, at::ObserverContext* c) {
    auto* ctx = static_cast<Context*>(c);
    --depth();
    if (!ctx->top) return;
    auto& e = table()[fn.name()];
    ++e.count;
    e.us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - ctx->start).count();
  }
  at::CallbackHandle handle_;
};

}  // namespace ripplekv::bench
