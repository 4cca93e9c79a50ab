#include "eval/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ripplekv::eval {

RunLock::RunLock(const std::filesystem::path& dir, const std::string& name, const std::string& what) {
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(fmt::format("{}: cannot open the lock file ({})", path.string(), std::strerror(errno)));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {0};
    const ssize_t n = ::pread(fd_, buf, sizeof(buf) - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      const std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("?");
      throw std::runtime_error(fmt::format(
          "{}: another ripplekv process (PID {}) is writing {}; wait for it to finish, stop it, or use another "
          "--out (the lock is released when that process exits)", dir.string(), pid.substr(0, pid.find('\n')), what));
    }
    throw std::runtime_error(fmt::format("{}: cannot lock ({})", path.string(), std::strerror(err)));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock is held either way; the PID is only for the message another process prints.
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace ripplekv::eval
