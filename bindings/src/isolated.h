// Running library work that forks (run_points, validation) away from the Python process.
//
// The work runs in a forked supervisor process in its own process group; the supervisor's
// run_points() forks one child per point as usual. The Python process waits for exactly that one
// supervisor, so
//  - run_points()' waitpid(-1) can only reap the supervisor's own children, never a child of the
//    Python process (a Dask nanny, a subprocess);
//  - an interrupt (Ctrl-C, Jupyter's "interrupt kernel") or an exception in the progress callback
//    kills the whole group and reaps the supervisor: no stray simulations, no zombies;
//  - nothing is left open or running after a call, however many calls a session makes.
// The GIL is released while waiting. No SimGrid engine is ever created in the Python process.
#pragma once
#include <pybind11/pybind11.h>

#include <functional>
#include <string>

namespace poolsim_py {

using Progress = std::function<void(size_t done, size_t total)>;

// Runs `work` in a supervisor process and returns the text it returns (one line: no '\n').
// `progress` (a Python callable or None) is called as progress(done, total) with the GIL held.
// An InputError thrown by `work` is thrown again here as a poolsim::InputError; any other exception
// as std::runtime_error.
std::string run_isolated(const std::function<std::string(const Progress&)>& work, const pybind11::object& progress);

}  // namespace poolsim_py
