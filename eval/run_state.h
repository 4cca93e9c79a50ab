// Resumable, shardable LongBench prediction files.
//
// A run appends one line per finished sample to its task's file, in pred.py's format plus
// the sample id: {"pred", "answers", "all_classes", "length", "_id"} (eval.py and
// `ripplekv longbench-score` ignore "_id"). Each line is written with a single write() of
// the whole line and its newline and then flushed to disk, so a killed run leaves at most
// one torn last line; reopening drops it (truncating the file back to the last complete
// line) and the run redoes that sample. Finished samples are never redone or duplicated.
//
// Sharding: with --shard i/n, sample k of a task (in file order, after --max-samples) belongs
// to shard k % n and shard i writes shards/<task>.shard-i-of-n.jsonl (a subfolder, so that
// eval.py, which scores every *.jsonl of the folder, never sees them). merge_shards()
// writes <task>.jsonl in the original order once every shard is complete. A folder can switch
// between the two: a shard copies the lines of its samples that <task>.jsonl holds, and a
// whole run those the shard files hold, instead of redoing them.
// Torch-free.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval/longbench_data.h"

namespace ripplekv::eval {

struct Shard {
  int index = 0;  // i in [0, count)
  int count = 1;  // n
  bool owns(std::size_t sample_index) const { return static_cast<int>(sample_index % static_cast<std::size_t>(count)) == index; }
  bool is_whole() const { return count == 1; }
};

// Parses "i/n" (0 <= i < n). Throws std::invalid_argument with an example on bad input.
Shard parse_shard(const std::string& text);

// "<task>.jsonl" for a whole run, "shards/<task>.shard-i-of-n.jsonl" for a shard.
std::filesystem::path prediction_path(const std::filesystem::path& out_dir, const std::string& task,
                                      const Shard& shard);

// The line a finished sample gets (no trailing newline). Invalid UTF-8 in `pred` becomes
// U+FFFD, as Python's decode(errors="replace") would give.
std::string prediction_line(const Sample& sample, const std::string& pred);

using WarningSink = std::function<void(const std::string&)>;  // empty: stderr

// One task's append-only prediction file.
class PredictionFile {
 public:
  // Opens `path` (creating it and its folder if needed) and reads the finished samples.
  // A last line that is torn (no newline) or not valid JSON is dropped, the file truncated
  // to the line before, and a warning names it. Any other bad line, a line without "_id",
  // or an "_id" seen twice throws std::runtime_error "path:line: ..." saying how to fix it.
  // Every line must carry `required_key` ("pred" for predictions; other tasks name their own).
  explicit PredictionFile(std::filesystem::path path, const WarningSink& warn = {},
                          const std::string& required_key = "pred");
  ~PredictionFile();
  PredictionFile(const PredictionFile&) = delete;
  PredictionFile& operator=(const PredictionFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  bool has(const std::string& id) const { return line_of_.count(id) != 0; }
  std::size_t size() const { return ids_.size(); }
  const std::vector<std::string>& ids() const { return ids_; }  // in file order
  bool dropped_torn_line() const { return dropped_torn_line_; }

  // Appends the sample's line (one write, then fsync). Throws std::logic_error if the id is
  // already there, std::runtime_error (naming the file) if the write fails.
  void append(const Sample& sample, const std::string& pred);
  // Appends a line another format made (JSON, no newline, carrying "_id": id) the same way.
  void append_line(const std::string& id, const std::string& line);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::vector<std::string> ids_;
  std::unordered_map<std::string, std::size_t> line_of_;
  bool dropped_torn_line_ = false;
};

// The ids of a prediction file's lines, in order, without modifying it (a torn last line
// is ignored). nullopt if the file does not exist. Errors as PredictionFile, whose
// `required_key` every line must carry.
std::optional<std::vector<std::string>> read_prediction_ids(const std::filesystem::path& path,
                                                            const std::string& required_key = "pred");

// True when `path` holds exactly `expected_ids` (any order, no extras, no duplicates).
bool prediction_file_complete(const std::filesystem::path& path, const std::vector<std::string>& expected_ids);

// The ids shard `shard` owns, in order.
std::vector<std::string> shard_ids(const std::vector<std::string>& all_ids, const Shard& shard);

// Merges shards/<task>.shard-i-of-n.jsonl (i = 0..n-1) into <task>.jsonl, lines in the order
// of `expected_ids` (the task's samples in file order), written to a temporary file and
// renamed into place. Throws std::runtime_error naming the file and the sample when a shard
// file is missing, a sample is missing, a sample sits in the wrong shard or appears twice.
// Returns the merged path.
std::filesystem::path merge_shards(const std::filesystem::path& out_dir, const std::string& task, int shard_count,
                                   const std::vector<std::string>& expected_ids);

// True when <out_dir>/<task>.jsonl holds exactly `expected_ids`, merging the task's shard
// files into it first when they are all complete. False while anything is missing (a shard
// still running). Throws, as sole_shard_count does, when shard files of several counts are
// present, and with whole_and_shards_disagree's message when the merge would replace a
// <task>.jsonl line that differs from the shards'.
bool complete_or_merge(const std::filesystem::path& out_dir, const std::string& task,
                       const std::vector<std::string>& expected_ids);

// Whether <out_dir>/<task>.jsonl and the task's shard files of count `shard_count` disagree:
// a sample _id whose line differs between the whole file and a shard file (two runs made
// it). nullopt when every whole-file line is either in the shard files byte for byte (an
// earlier merge of them, which the next merge replaces) or in none of them yet (that
// sample's shard copies it when it runs: see predictions_in_other_files). Otherwise a
// message naming both files and the sample.
std::optional<std::string> whole_and_shards_disagree(const std::filesystem::path& out_dir, const std::string& task,
                                                     int shard_count);

// The finished lines (id -> line) that the folder's other prediction files of `task` hold:
// for a shard run the whole <task>.jsonl, for a whole run every shards/<task>.shard-*.jsonl.
// A run copies the lines of the samples it owns from them instead of redoing those samples,
// so a folder switched between a whole run and shards loses no finished work. A torn last
// line is ignored; other bad lines throw as PredictionFile does, and so do two files holding
// different lines for one sample (shard files of two counts, made by two runs).
std::unordered_map<std::string, std::string> predictions_in_other_files(const std::filesystem::path& out_dir,
                                                                        const std::string& task, const Shard& shard,
                                                                        const std::string& required_key = "pred");

// The shard counts n of the shards/<task>.shard-*-of-n.jsonl files present for `task`.
std::vector<int> shard_counts_present(const std::filesystem::path& out_dir, const std::string& task);

// The one shard count of `task`'s shard files, nullopt when it has none. Throws
// std::runtime_error naming the folder, the task and the counts when files of several counts
// are present (say shard-0-of-2 and shard-0-of-3): a folder holds one way of sharding, and
// such a folder would otherwise wait forever for a count's missing shards.
std::optional<int> sole_shard_count(const std::filesystem::path& out_dir, const std::string& task);

// Refuses a shard's run (n > 1) into a folder whose shards/ holds `task`'s files of another
// count m: those files and this run's would never merge (sole_shard_count would stop the
// scoring), and finishing them needs --shard i/m. Throws std::runtime_error naming the folder,
// the counts and both ways on; returns for a whole run, which writes <task>.jsonl.
void check_shard_count(const std::filesystem::path& out_dir, const std::string& task, const Shard& shard);

}  // namespace ripplekv::eval
