// Helpers shared by the tests: scenarios from inline YAML, and running the CLI.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/scenario.h"

// A string contains another (the failure message shows the whole haystack).
#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

namespace poolsim::testing {

// The first point of a scenario written inline.
Scenario scenario_from(const std::string& yaml);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs build/poolsim with `args` (a shell fragment).
CommandResult run_cli(const std::string& args);

std::string temp_path(const std::string& name);
std::string write_temp(const std::string& name, const std::string& text);
// The whole file ("" when it cannot be read).
std::string read_file(const std::string& path);
// Replaces the first line of `path` that starts with `prefix` by `line` (no newline) and returns its
// 1-based number (0 when no line starts so, and the file is left as it was).
int replace_line(const std::string& path, const std::string& prefix, const std::string& line);

}  // namespace poolsim::testing
