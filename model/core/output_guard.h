// Checks a command makes on its inputs' and output's paths before any work, shared by the CLI
// (model/cli/main.cpp) and the Python bindings (bindings/src/module.cpp) so that both refuse the
// same things with the same words.
#pragma once
#include <string>
#include <vector>

namespace poolsim {

// An input of a command that an output could replace: a file, or a directory whose files are all
// inputs (a trace).
struct CommandInput {
  std::string what;  // "the scenario", "the trace" ...
  std::string path;
  bool directory = false;
};

// A trace's directory name becomes its row's label in the JSON output and part of its device's name
// in the scenario built for it: a name that is not UTF-8 is refused (InputError at `what`) before
// anything is read, rather than replaced or left to fail in the JSON dump after the work.
void require_utf8_names(const std::vector<std::string>& paths, const std::string& what);

// The output is written after the inputs are read, whole, by rename: naming an input (itself, through
// a link, or a file of a trace directory), a directory, or a file in a directory that is not there is
// refused (InputError at `option`) before any work. An empty path or "-" (standard output) passes.
void refuse_output_over_inputs(const std::string& out, const std::string& option, const std::vector<CommandInput>& inputs);

// A trace directory given twice (however spelt: "t", "t/", "./t") would count twice in a fit.
void refuse_repeated_traces(const std::vector<std::string>& dirs, const std::string& key = "traces",
                            const std::string& counted_in = "the fit");

}  // namespace poolsim
