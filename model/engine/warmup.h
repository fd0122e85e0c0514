// The functional warm-up of a buffer pool: the state the pool reaches when the workload's page
// accesses are replayed without timing, either by replaying them or, for uniform keys, built
// directly as that replay's steady state (then a short replay).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "engine/btree.h"
#include "engine/buffer_pool.h"
#include "workload/sysbench.h"

namespace poolsim {

// The pages one statement touches, appended to `out` in order as InnodbServer::execute touches them;
// `modified`, when given, is kept as long as `out` and marks the pages the statement modifies (the
// leaf of each index a write goes down).
void statement_pages(const DataLayout& layout, const Statement& statement, std::vector<std::uint32_t>& out,
                     std::vector<std::uint8_t>* modified = nullptr);

// The pages one event (transaction) of `statements` touches, in order, as InnodbServer::execute
// touches them (B-tree paths, range scans' extra leaves, the secondary index of writes).
void event_pages(const DataLayout& layout, const std::vector<Statement>& statements, std::vector<std::uint32_t>& out);

// Replays page accesses of the workload into the pool without timing, from `*t` (advanced by 1 ms a
// touch). Stops after `max_misses` misses once the pool is full, or once the data set is resident,
// or after `max_touches` touches. Returns the touches replayed; `misses` gets the misses.
std::uint64_t replay_accesses(BufferPool& pool, const DataLayout& layout, const SysbenchMix& mix, std::mt19937_64& rng,
                              double* t, std::uint64_t max_misses, std::uint64_t max_touches, std::uint64_t* misses = nullptr);

// The replay's steady state, built directly (uniform keys only; returns false otherwise and leaves
// the pool empty). See warmup.cpp for the mechanism.
struct SteadyStateSummary {
  double touches_per_txn = 0;
  double predicted_misses_per_txn = 0;  // of the replay in that state (the TTL fixed point)
  double old_age_txn = 0, young_age_txn = 0;  // T1, T2: time through the old and young sublists
  std::uint32_t loaded = 0;
};
bool preload_steady_state(BufferPool& pool, const DataLayout& layout, const SysbenchMix& mix, std::mt19937_64& rng,
                          SteadyStateSummary* summary = nullptr);

// The whole functional warm-up: the steady-state preload and a short replay where it applies,
// otherwise the full replay (fill the pool, then 200k more misses). `direct` false forces the replay.
// Returns the page touches replayed.
std::uint64_t functional_warmup(BufferPool& pool, const DataLayout& layout, const SysbenchMix& mix, std::mt19937_64& rng,
                                bool direct = true);

}  // namespace poolsim
