// Blocking the calling actor until a simulated time, for the analytic queues (CPU, devices, fabric)
// whose completion times are known when work is submitted.
#pragma once
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

namespace poolsim {

// The same as this_actor::sleep_until, for less: a sleep is a SimGrid activity with a CPU-model
// action and a max-min variable, where this is one kernel timer that resumes the suspended actor
// (about 40 % less CPU per wait in a 128-actor micro-benchmark; poolsim waits tens of times per
// transaction). A daemon killed at the end of the run leaves its timer behind: it fires into a dead
// actor, which SimGrid ignores.
inline void wait_until(double wake_s) {
  if (wake_s <= simgrid::s4u::Engine::get_clock()) return;
  simgrid::s4u::ActorPtr self = simgrid::s4u::Actor::self();
  simgrid::kernel::timer::Timer::set(wake_s, [self] { self->resume(); });
  simgrid::s4u::this_actor::suspend();
}

}  // namespace poolsim
