#include "isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "core/errors.h"
#include "core/temp_directory.h"
#include "sim/simulation.h"

namespace py = pybind11;

namespace poolsim_py {

namespace {

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // the parent is gone; nothing to report to
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Closes every descriptor but 0, 1, 2 and `keep` (the supervisor must not hold the Python process's
// sockets and pipes open).
void close_other_fds(int keep) {
#ifdef SYS_close_range
  if (keep > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
  if (syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) return;
#endif
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  for (int fd = 3; fd < max_fd; ++fd)
    if (fd != keep) ::close(fd);
}

[[noreturn]] void supervise(int out, pid_t parent, const std::string& temp_dir, const std::function<std::string(const Progress&)>& work) {
  // A process group of its own: the parent kills the supervisor and every point with one kill().
  setpgid(0, 0);
  // Die with the thread that forked us (the parent's kill covers interrupts; this covers a crash).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(4);
  for (int sig : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGHUP}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  close_other_fds(out);
  setenv("TMPDIR", temp_dir.c_str(), 1);
  int code = 0;
  try {
    std::string text = work([out](size_t done, size_t total) {
      write_all(out, "P " + std::to_string(done) + " " + std::to_string(total) + "\n");
    });
    write_all(out, "R " + text + "\n");
  } catch (const poolsim::InputError& e) {
    nlohmann::json error = {{"file", e.where().file}, {"line", e.where().line}, {"column", e.where().column},
                            {"key", e.key()}, {"detail", e.detail()}};
    write_all(out, "I " + error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    code = 2;
  } catch (const std::exception& e) {
    write_all(out, "E " + nlohmann::json(e.what()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    code = 3;
  } catch (const poolsim::Interrupted& interrupted) {
    // A signal to the supervisor itself (its points are stopped): die of it, as before.
    ::close(out);
    signal(interrupted.signal, SIG_DFL);
    raise(interrupted.signal);
    _exit(128 + interrupted.signal);
  } catch (...) {
    write_all(out, "E \"unknown error\"\n");
    code = 3;
  }
  ::close(out);
  _exit(code);
}

void kill_and_reap(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string run_isolated(const std::function<std::string(const Progress&)>& work, const py::object& progress) {
  // The supervisor's TMPDIR (run_points' result files, validate's scratch profiles), removed here
  // once it has been reaped, on every path out: a killed supervisor cannot clean up after itself.
  const poolsim::TempDirectory temp("poolsim-py-");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("poolsim: pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("poolsim: fork failed: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    supervise(fds[1], parent, temp.path(), work);
  }
  setpgid(pid, pid);  // also done by the child; whichever runs first
  ::close(fds[1]);
  const int in = fds[0];

  std::string buffer;      // bytes read, not yet split into lines
  size_t scanned = 0;      // buffer[0, scanned) holds no newline
  std::string final_line;  // the R / I / E line
  bool eof = false;
  std::string read_error;
  // Everything Python happens here, with the GIL held; a Python exception kills the supervisor.
  auto python_step = [&](const std::vector<std::pair<size_t, size_t>>& events) {
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none())
        for (const auto& [done, total] : events) progress(done, total);
    } catch (...) {
      ::close(in);
      kill_and_reap(pid);
      throw;
    }
  };
  {
    py::gil_scoped_release release;
    while (!eof) {
      pollfd p{in, POLLIN, 0};
      int r = poll(&p, 1, 100);
      if (r < 0 && errno != EINTR) {
        read_error = std::strerror(errno);
        break;
      }
      if (r > 0) {
        char chunk[65536];
        ssize_t n = ::read(in, chunk, sizeof chunk);
        if (n == 0) eof = true;
        else if (n > 0) buffer.append(chunk, static_cast<size_t>(n));
        else if (errno != EINTR && errno != EAGAIN) {
          read_error = std::strerror(errno);
          break;
        }
      }
      std::vector<std::pair<size_t, size_t>> events;
      size_t start = 0;
      for (size_t nl; (nl = buffer.find('\n', std::max(start, scanned))) != std::string::npos; start = nl + 1) {
        if (buffer.compare(start, 2, "P ") == 0) {
          unsigned long long done = 0, total = 0;
          if (std::sscanf(buffer.c_str() + start, "P %llu %llu", &done, &total) == 2) events.emplace_back(done, total);
        } else {
          final_line = buffer.substr(start, nl - start);
        }
      }
      buffer.erase(0, start);
      scanned = buffer.size();
      python_step(events);
    }
  }
  ::close(in);
  if (!read_error.empty()) kill(-pid, SIGKILL);
  int status = 0;
  {
    py::gil_scoped_release release;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (!read_error.empty()) throw std::runtime_error("poolsim: reading from the simulation process failed: " + read_error);
  if (final_line.size() >= 2 && final_line[0] == 'R') return final_line.substr(2);
  if (final_line.size() >= 2 && final_line[0] == 'I') {
    auto e = nlohmann::json::parse(final_line.substr(2));
    throw poolsim::InputError({e["file"].get<std::string>(), e["line"].get<int>(), e["column"].get<int>()},
                              e["key"].get<std::string>(), e["detail"].get<std::string>());
  }
  if (final_line.size() >= 2 && final_line[0] == 'E')
    throw std::runtime_error(nlohmann::json::parse(final_line.substr(2)).get<std::string>());
  std::string why = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                        : "exited with code " + std::to_string(WEXITSTATUS(status));
  throw std::runtime_error("poolsim: the simulation process " + why + " without a result");
}

}  // namespace poolsim_py
