// One writer per run folder: an exclusive advisory lock (flock) on a lock file inside it,
// held for the life of the object and released by the OS when the process ends, however it
// ends (kill -9 included), so a stale lock never blocks a resume. A second process that asks
// for the same lock gets an error naming the holder's PID. Torch-free.
#pragma once

#include <filesystem>
#include <string>

namespace ripplekv::eval {

class RunLock {
 public:
  // Locks `dir`/`name` (creating `dir`). Throws std::runtime_error naming the folder, the
  // holder's PID and what to do when another process holds it.
  RunLock(const std::filesystem::path& dir, const std::string& name, const std::string& what);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace ripplekv::eval
