#include "eval/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ripplekv::eval {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

ProgressBar::ProgressBar(std::string label, std::size_t total, std::size_t already_done, std::FILE* out, int tty,
                         double plain_interval_seconds, RunProgress* run)
    : label_(std::move(label)),
      total_(total),
      done_(already_done),
      left_at_start_(total > already_done ? total - already_done : 0),
      run_(run),
      out_(out),
      tty_(tty < 0 ? ::isatty(::fileno(out)) != 0 : tty != 0),
      plain_interval_(plain_interval_seconds),
      last_plain_(std::chrono::steady_clock::now()) {
  draw(/*force=*/true);
}

ProgressBar::~ProgressBar() {
  if (!finished_) finish();
}

std::string ProgressBar::line() const {
  constexpr int kWidth = 24;
  const double frac = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
  std::string bar;
  if (tty_) {
    const int filled = static_cast<int>(std::floor(frac * kWidth));
    bar = "[" + std::string(static_cast<std::size_t>(filled), '#') +
          std::string(static_cast<std::size_t>(kWidth - filled), '.') + "] ";
  }
  std::string rates = "prefill - tok/s, decode - tok/s, ETA ?";
  if (run_here_ > 0 && sum_.wall_seconds > 0) {
    const double per_sample = sum_.wall_seconds / static_cast<double>(run_here_);
    const double left = static_cast<double>(total_ > done_ ? total_ - done_ : 0) * per_sample;
    auto rate = [](int64_t tokens, double seconds) {
      return seconds > 0 ? fmt::format("{:.1f}", static_cast<double>(tokens) / seconds) : std::string("-");
    };
    rates = fmt::format("prefill {} tok/s, decode {} tok/s, ETA {}", rate(sum_.prompt_tokens, sum_.prefill_seconds),
                        rate(sum_.generated_tokens, sum_.decode_seconds), format_duration(left));
  }
  std::string whole;
  if (run_ && run_->pending > left_at_start_) {  // the run spans other tasks too
    double run_left = -1;
    if (run_->run >= run_->pending) {
      run_left = 0;
    } else if (run_->pending_tokens > 0 && run_->run_tokens > 0 && run_->wall_seconds > 0) {
      run_left = static_cast<double>(std::max<int64_t>(0, run_->pending_tokens - run_->run_tokens)) *
                 run_->wall_seconds / static_cast<double>(run_->run_tokens);
    } else if (run_->run > 0 && run_->wall_seconds > 0) {
      run_left = static_cast<double>(run_->pending - run_->run) * run_->wall_seconds / static_cast<double>(run_->run);
    }
    whole = fmt::format("; run {}/{}, ETA {}", run_->run, run_->pending, format_duration(run_left));
  }
  return fmt::format("{} {}{}/{} ({:.0f}%) {}{}", label_, bar, done_, total_, 100.0 * frac, rates, whole);
}

void ProgressBar::sample_done(const SampleStats& stats) {
  ++done_;
  ++run_here_;
  sum_.prompt_tokens += stats.prompt_tokens;
  sum_.prefill_seconds += stats.prefill_seconds;
  sum_.generated_tokens += stats.generated_tokens;
  sum_.decode_seconds += stats.decode_seconds;
  sum_.wall_seconds += stats.wall_seconds;
  if (run_) {
    ++run_->run;
    run_->run_tokens += stats.prompt_tokens;
    run_->wall_seconds += stats.wall_seconds;
  }
  draw(/*force=*/done_ >= total_);
}

void ProgressBar::draw(bool force) {
  if (tty_) {
    fmt::print(out_, "\r{}\x1b[K", line());
    std::fflush(out_);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_plain_).count();
  if (!force && printed_plain_ && since < plain_interval_) return;
  fmt::print(out_, "{}\n", line());
  std::fflush(out_);
  last_plain_ = now;
  printed_plain_ = true;
}

void ProgressBar::finish() {
  finished_ = true;
  if (tty_) {
    fmt::print(out_, "\r{}\x1b[K\n", line());
    std::fflush(out_);
  } else if (run_here_ > 0 && done_ < total_) {
    draw(/*force=*/true);  // stopped early: show where
  }
}

}  // namespace ripplekv::eval
