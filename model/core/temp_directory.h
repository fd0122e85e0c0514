// A private directory under TMPDIR for files that must not outlive their run.
#pragma once
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace poolsim {

// mkdtemp's $TMPDIR/<prefix>XXXXXX, removed with everything in it when the object goes (or at
// remove()), by the process that made it only: a forked child that runs destructors leaves it to
// its parent.
class TempDirectory {
public:
  explicit TempDirectory(const std::string& prefix) : owner_(getpid()) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("cannot create a temporary directory like " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
  }
  ~TempDirectory() { remove(); }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  void remove() {
    if (path_.empty() || getpid() != owner_) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    path_.clear();
  }
  const std::string& path() const { return path_; }

private:
  pid_t owner_;
  std::string path_;
};

}  // namespace poolsim
