// A per-task progress line on stderr: samples done/total, prefill and decode tokens/s and
// the estimated time left; with a RunProgress, also the whole run's (all its tasks and
// lengths). On a terminal it redraws one line in place; elsewhere (CI logs, files) it prints
// a plain line at most every `plain_interval_seconds` and at the end. Rates and ETA count
// only the samples run in this process (resumed ones are done already). Torch-free.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ripplekv::eval {

// The samples a command's call has to run over all its tasks (a RULER run's tasks and
// lengths, LongBench's tasks), shared by the tasks' progress bars: each finished sample
// counts here too, so every task's line can show the run's progress and time left.
// The time left is the time per sample so far times the samples left or, where the command
// knows the prompt lengths ahead (RULER's lengths), the time per prompt token times the tokens
// left, so that a run of growing lengths is not estimated from its shortest prompts.
struct RunProgress {
  std::size_t pending = 0;      // samples this call runs, over all its tasks (set by the command)
  int64_t pending_tokens = 0;   // their prompt tokens, about (0: not known; set by the command)
  std::size_t run = 0;          // of them, finished so far
  int64_t run_tokens = 0;       // the prompt tokens of those
  double wall_seconds = 0;      // their wall time
};

class ProgressBar {
 public:
  // `already_done` samples were finished by an earlier run. `tty` < 0: ask isatty(out).
  // `run` (not owned; may be null) is the whole run's progress, which sample_done advances;
  // the line shows it when the run holds more samples than this task had left (other tasks).
  ProgressBar(std::string label, std::size_t total, std::size_t already_done, std::FILE* out = stderr,
              int tty = -1, double plain_interval_seconds = 10.0, RunProgress* run = nullptr);

  struct SampleStats {
    int64_t prompt_tokens = 0;
    double prefill_seconds = 0;
    int64_t generated_tokens = 0;
    double decode_seconds = 0;
    double wall_seconds = 0;  // the whole sample: prompt building, prefill, compression, decode
  };
  // One more sample finished.
  void sample_done(const SampleStats& stats);
  // Prints the final state (a newline on a terminal). Called by the destructor if needed.
  void finish();
  ~ProgressBar();

  // The text of the current state (without the carriage return), for tests.
  std::string line() const;

 private:
  void draw(bool force);

  std::string label_;
  std::size_t total_, done_;
  std::size_t run_here_ = 0;
  std::size_t left_at_start_;  // total_ - already_done
  RunProgress* run_;
  SampleStats sum_;
  std::FILE* out_;
  bool tty_;
  double plain_interval_;
  std::chrono::steady_clock::time_point last_plain_;
  bool printed_plain_ = false;
  bool finished_ = false;
};

// "1h02m", "3m05s", "42s".
std::string format_duration(double seconds);

}  // namespace ripplekv::eval
