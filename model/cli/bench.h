// poolsim bench: simulation speed and memory, printed as figures (not a timed test).
#pragma once

namespace poolsim {

// Runs the benchmark points; `matrix` adds the seed-000 matrix with `jobs` jobs.
int run_bench(bool matrix, int jobs);

}  // namespace poolsim
