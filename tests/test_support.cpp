#include "test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/temp_directory.h"

namespace poolsim::testing {

Scenario scenario_from(const std::string& yaml) { return load_scenarios_from_text(yaml, "test.yaml").front(); }

std::string temp_path(const std::string& name) {
  // One per test process, removed when it exits.
  static const TempDirectory dir("poolsim-test-");
  return dir.path() + "/" + name;
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int replace_line(const std::string& path, const std::string& prefix, const std::string& line) {
  std::istringstream in(read_file(path));
  std::string out, text;
  int number = 0, found = 0;
  while (std::getline(in, text)) {
    ++number;
    if (!found && text.rfind(prefix, 0) == 0) {
      found = number;
      text = line;
    }
    out += text + "\n";
  }
  if (found) std::ofstream(path) << out;
  return found;
}

CommandResult run_cli(const std::string& args) {
  static int counter = 0;
  std::string out = temp_path("cli-out-" + std::to_string(counter));
  std::string err = temp_path("cli-err-" + std::to_string(counter++));
  std::string command = std::string(POOLSIM_BINARY) + " " + args + " >" + out + " 2>" + err + " </dev/null";
  int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace poolsim::testing
