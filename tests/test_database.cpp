// The database model: buffer pool against Che's approximation, and the InnoDB mechanisms end to end
// on a small data set (each simulation in its own process).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <regex>

#include "engine/btree.h"
#include "engine/buffer_pool.h"
#include "engine/warmup.h"
#include "platform/page_cache.h"
#include "sim/simulation.h"
#include "sim/statistics.h"
#include "test_support.h"

using namespace poolsim;
using poolsim::testing::scenario_from;

namespace {

// sysbench's options for a test of the workload model: oltp_read_write on `tables` x `table_size`.
SysbenchOptions sysbench_options(int tables, std::uint64_t table_size, const std::string& rand_type) {
  SysbenchOptions o;
  o.tables = tables;
  o.table_size = table_size;
  o.rand_type = rand_type;
  return o;
}
// Che's approximation for LRU under independent references: the characteristic time T solves
// sum_i (1 - exp(-p_i T)) = C, and the hit ratio is sum_i p_i (1 - exp(-p_i T)).
double che_hit_ratio(const std::vector<double>& p, double capacity) {
  double lo = 0, hi = 1e3 * p.size();
  for (int it = 0; it < 200; ++it) {
    double mid = 0.5 * (lo + hi), occupied = 0;
    for (double q : p) occupied += 1 - std::exp(-q * mid);
    (occupied < capacity ? lo : hi) = mid;
  }
  double hit = 0;
  for (double q : p) hit += q * (1 - std::exp(-q * lo));
  return hit;
}

double simulate_hit_ratio(const std::vector<double>& p, std::uint32_t frames, double old_ratio) {
  BufferPool pool(static_cast<std::uint32_t>(p.size()), frames, old_ratio, 0.0);
  std::discrete_distribution<std::uint32_t> pick(p.begin(), p.end());
  std::mt19937_64 rng(5);
  double t = 0;
  for (int i = 0; i < 2'000'000; ++i) pool.preload(pick(rng), t += 1e-6);  // warm
  pool.counters = BufferPool::Counters{};
  for (int i = 0; i < 4'000'000; ++i) {
    std::uint32_t page = pick(rng);
    if (!pool.touch(page, t += 1e-6)) pool.preload(page, t);
  }
  return static_cast<double>(pool.counters.hits) / (pool.counters.hits + pool.counters.misses);
}

const char* kSmallDatabase =
    "compute: {cores: 2}\n"
    "storage: {kind: local, device: pcie4-nvme-tlc}\n"
    "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, rand_type: uniform, threads: 4}\n"
    "database: {buffer_pool: 8MiB, io_capacity: 2000}\n"
    "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";

// kSmallDatabase with the top-level sections of `extra` in place of its own (a mapping holds a key
// once, so a section cannot simply be appended again).
std::string small_database_with(const std::string& extra) {
  YAML::Node base = YAML::Load(kSmallDatabase), sections = YAML::Load(extra);
  if (sections.IsMap())
    for (const auto& section : sections) base[section.first.Scalar()] = section.second;
  YAML::Emitter out;
  out << base;
  return std::string(out.c_str()) + "\n";
}

nlohmann::ordered_json run(const std::string& extra) {
  return run_point(scenario_from(small_database_with(extra)));
}

// The message of the error loading `yaml` after a two-core host on a local NVMe SSD ("" if none).
std::string load_error_on_a_local_ssd(const std::string& yaml) {
  try {
    scenario_from("compute: {cores: 2}\nstorage: {kind: local, device: pcie4-nvme-tlc}\n" + yaml);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// The fitted MariaDB profile (scenarios/profiles/mariadb-10.11.yaml) with `changes` (a YAML map whose
// entries replace or add keys, one level deep into maps), written to a temporary file.
std::string mariadb_profile_with(const std::string& name, const std::string& changes) {
  YAML::Node profile = YAML::LoadFile(POOLSIM_SOURCE_DIR "/scenarios/profiles/mariadb-10.11.yaml");
  YAML::Node extra = YAML::Load(changes);
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (it->second.IsMap())
      for (auto sub = it->second.begin(); sub != it->second.end(); ++sub) profile[key][sub->first.as<std::string>()] = sub->second;
    else
      profile[key] = it->second;
  }
  YAML::Emitter out;
  out << profile;
  return poolsim::testing::write_temp(name, std::string(out.c_str()) + "\n");
}

// A write-heavy run on a pool of 256 frames and a SATA SSD, where threads run out of clean pages;
// `database_keys` go first in its database section ("profile: P, " or nothing).
std::string small_pool_update_scenario(int threads, const std::string& database_keys, const std::string& sweep) {
  return "compute: {cores: 2}\n"
         "storage: {kind: local, device: samsung-850-pro}\n"
         "workload: {kind: sysbench, test: oltp_update_non_index, tables: 2, table_size: 100000, rand_type: uniform, threads: " +
         std::to_string(threads) + "}\n" + "database: {" + database_keys + "buffer_pool: 4MiB, io_capacity: 200, lru_scan_depth: 100}\n" +
         "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n" + "sweep: " + sweep + "\n";
}
}  // namespace

TEST(BufferPool, UniformAccessMatchesChe) {
  std::vector<double> p(20000, 1.0 / 20000);
  for (std::uint32_t frames : {2000u, 10000u, 16000u}) {
    double expected = che_hit_ratio(p, frames);  // = frames / pages for uniform access
    EXPECT_NEAR(simulate_hit_ratio(p, frames, 0.37), expected, 0.01) << frames;
  }
}

TEST(OsPageCache, UniformReadsHitAsTheCapacityOverTheData) {
  // An LRU under uniform independent references holds a uniform sample of the pages, so its hit
  // ratio is capacity / pages (Che's approximation for equal probabilities).
  const std::uint32_t pages = 20000;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::uint32_t> pick(0, pages - 1);
  for (std::uint64_t capacity : {2000u, 10000u, 16000u}) {
    OsPageCache cache(pages, capacity);
    for (int i = 0; i < 200000; ++i) cache.read(pick(rng));  // warm
    cache.counters = OsPageCache::Counters{};
    for (int i = 0; i < 400000; ++i) cache.read(pick(rng));
    const double hit = static_cast<double>(cache.counters.hits) / (cache.counters.hits + cache.counters.misses);
    EXPECT_NEAR(hit, static_cast<double>(capacity) / pages, 0.01) << capacity;
    EXPECT_EQ(cache.cached_pages(), capacity);
  }
  // A written page is cached and the most recent: the next capacity - 1 new pages do not evict it.
  OsPageCache small(100, 10);
  small.write(42);
  for (std::uint32_t p = 0; p < 9; ++p) small.read(p);
  EXPECT_TRUE(small.holds(42));
  small.read(50);
  EXPECT_FALSE(small.holds(42));
  // A cache as large as the data keeps no list: every read hits.
  OsPageCache all(100, 100);
  EXPECT_TRUE(all.holds_everything());
  EXPECT_TRUE(all.read(99));
}

TEST(OsPageCache, TheUniformWarmStateHoldsThePoolsPagesAndASampleOfTheRest) {
  OsPageCache cache(1000, 300);
  std::mt19937_64 rng(1);
  cache.warm_uniform([](std::uint32_t p) { return p < 100; }, rng);  // the pool holds pages 0-99
  EXPECT_EQ(cache.cached_pages(), 300u);
  int pool_pages = 0;
  for (std::uint32_t p = 0; p < 100; ++p) pool_pages += cache.holds(p);
  EXPECT_EQ(pool_pages, 100);
  // The pool's pages are the most recent: 200 new pages evict only the sample.
  for (std::uint32_t p = 0, added = 0; added < 200; ++p)
    if (!cache.holds(999 - p)) cache.read(999 - p), ++added;
  for (std::uint32_t p = 0; p < 100; ++p) EXPECT_TRUE(cache.holds(p)) << p;
}

TEST(BufferPool, SkewedAccessMatchesCheInLruModeAndMidpointDoesBetter) {
  // 10 % of pages take 50 % of the references. With the old sublist spanning the whole list
  // (old ratio 1) midpoint insertion is plain LRU, which Che's approximation describes; InnoDB's
  // 37 % midpoint keeps hot pages better, so its hit ratio must not be lower.
  std::vector<double> p(20000);
  for (size_t i = 0; i < p.size(); ++i) p[i] = (i < 2000 ? 0.5 / 2000 : 0.5 / 18000);
  double expected = che_hit_ratio(p, 5000);
  EXPECT_NEAR(simulate_hit_ratio(p, 5000, 1.0), expected, 0.01);
  EXPECT_GT(simulate_hit_ratio(p, 5000, 0.37), expected);
}

// find_clean_near_tail remembers the run of pinned pages at the tail between calls: it must return
// what a walk from the tail returns after any sequence of LRU and state changes.
TEST(BufferPool, RememberedTailScanMatchesAWalkFromTheTail) {
  const std::uint32_t pages = 3000, frames = 1200;  // above InnoDB's 512-page minimum for an old sublist
  BufferPool pool(pages, frames, 0.37, 1e-3);
  std::mt19937_64 rng(11);
  auto walk = [&](std::uint32_t depth) {
    std::uint32_t page = pool.lru_tail();
    for (std::uint32_t i = 0; i < depth && page != BufferPool::kNone; ++i, page = pool.lru_previous(page))
      if (!pool.dirty(page) && !pool.in_flight(page) && !pool.write_fixed(page)) return page;
    return BufferPool::kNone;
  };
  double t = 0;
  std::vector<std::uint32_t> reading;
  int all_pinned = 0, found = 0;
  for (int step = 0; step < 300000; ++step) {
    t += 1e-4;
    // Pages near the tail are the interesting ones: draw them more often.
    std::uint32_t page = rng() % 4 == 0 ? pool.lru_tail() : static_cast<std::uint32_t>(rng() % pages);
    if (page == BufferPool::kNone) page = 0;
    switch (rng() % 8) {
      case 0:
        if (!pool.touch(page, t) && pool.free_frames() > 0) {
          pool.insert_reading(page, t);
          reading.push_back(page);
        }
        break;
      case 1:
        if (!reading.empty()) {
          pool.read_done(reading.back());
          reading.pop_back();
        }
        break;
      case 2: if (pool.resident(page)) pool.mark_dirty(page, step); break;
      case 3: if (!pool.write_fixed(page)) pool.mark_clean(page); break;
      case 4: if (pool.resident(page)) pool.set_write_fix(page, !pool.write_fixed(page)); break;
      case 5: {
        std::uint32_t victim = pool.find_clean_near_tail(static_cast<std::uint32_t>(1 + rng() % 64));
        if (victim != BufferPool::kNone) pool.evict(victim);
        break;
      }
      case 6: if (pool.free_frames() > 0 && !pool.resident(page)) pool.preload(page, t); break;
      default: {
        std::uint32_t depth = static_cast<std::uint32_t>(1 + rng() % 64);
        std::uint32_t expected = walk(depth);
        ASSERT_EQ(pool.find_clean_near_tail(depth), expected) << "step " << step;
        ++(expected == BufferPool::kNone ? all_pinned : found);
      }
    }
    if (step % 97 == 0) {
      ASSERT_TRUE(pool.tail_scan_consistent()) << "step " << step;
      ASSERT_TRUE(pool.list_consistent()) << "step " << step;
    }
  }
  EXPECT_TRUE(pool.tail_scan_consistent());
  // Both outcomes were exercised.
  EXPECT_GT(all_pinned, 1000);
  EXPECT_GT(found, 1000);
}

// A plain reference for the LRU order: InnoDB's midpoint list as a vector (head first), the rules of
// buf0lru.cc written out one by one. New pages enter at the old sublist's head (at the head below
// 512 pages); an old page touched after old_blocks_time moves to the head; a young page moves to the
// head once it has drifted past a quarter of the young sublist (counted in pages freed since it was
// last made young); the old sublist stays within 20 pages of 37 % of the list from 512 pages on.
struct ReferenceMidpointLru {
  std::vector<std::uint32_t> list;  // head first; the last `old_length` form the old sublist
  std::uint32_t old_length = 0, freed_clock = 0;
  std::map<std::uint32_t, float> first_access_s;
  std::map<std::uint32_t, std::uint32_t> young_clock;  // kept across residencies, as a slot keeps it
  double old_ratio, old_blocks_time_s;

  std::size_t index(std::uint32_t page) const { return std::find(list.begin(), list.end(), page) - list.begin(); }
  bool resident(std::uint32_t page) const { return index(page) < list.size(); }
  bool old(std::uint32_t page) const { return index(page) >= list.size() - old_length && resident(page); }
  void rebalance() {
    if (list.size() < 512) return;
    const auto target = static_cast<std::uint32_t>(list.size() * old_ratio);
    while (old_length > target + 20 && old_length > 0) --old_length;
    while (old_length + 20 < target && old_length < list.size()) ++old_length;
  }
  void move_to_head(std::uint32_t page) {
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(index(page)));
    list.insert(list.begin(), page);
    young_clock[page] = freed_clock;
  }
  void touch(std::uint32_t page, double now_s) {
    if (!resident(page)) return;
    if (old(page)) {
      if (now_s - first_access_s[page] < old_blocks_time_s) return;
      --old_length;
      move_to_head(page);
      rebalance();
    } else if (freed_clock - young_clock[page] > static_cast<std::uint32_t>(list.size() * (1.0 - old_ratio) / 4)) {
      move_to_head(page);
    }
  }
  void insert(std::uint32_t page, double now_s) {
    first_access_s[page] = static_cast<float>(now_s);
    if (list.size() < 512) {
      list.insert(list.begin(), page);
    } else {
      list.insert(list.end() - old_length, page);
      ++old_length;
    }
    rebalance();
  }
  void evict(std::uint32_t page) {
    if (old(page)) --old_length;
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(index(page)));
    ++freed_clock;
    rebalance();
  }
};

// The pool's list, walked from the tail, is the reference's in order, and so is its old sublist,
// after every kind of move, eviction anywhere in the list, and the rings' growth and compaction.
TEST(BufferPool, ListOrderMatchesAPlainMidpointLru) {
  const std::uint32_t pages = 1500, frames = 600;  // above the 512 pages of an old sublist, and small
                                                   // enough for the young ring to fill and compact
  const double old_blocks_time_s = 1e-3;
  BufferPool pool(pages, frames, 0.37, old_blocks_time_s);
  ReferenceMidpointLru reference{{}, 0, 0, {}, {}, 0.37, old_blocks_time_s};
  std::mt19937_64 rng(5);
  double t = 0;
  std::size_t max_entries = 0;
  for (int step = 0; step < 100000; ++step) {
    t += 1e-4;
    const auto page = static_cast<std::uint32_t>(rng() % pages);
    const int op = static_cast<int>(rng() % 10);
    if (step % 400 == 0) {
      // A scan touching every resident page: most young pages have drifted, so most move to the
      // head, and the young ring fills with the entries they leave behind.
      for (std::uint32_t p = 0; p < pages; ++p) {
        pool.touch(p, t);
        reference.touch(p, t);
      }
    } else if (op < 6) {
      // A read: a hit, or a miss that frees the tail's page when no frame is free.
      const bool hit = pool.touch(page, t);
      reference.touch(page, t);
      if (!hit) {
        if (pool.free_frames() == 0) {
          const std::uint32_t victim = pool.lru_tail();
          pool.evict(victim);
          reference.evict(victim);
        }
        pool.insert_reading(page, t);
        pool.read_done(page);
        reference.insert(page, t);
      }
    } else if (op < 8 && pool.resident(page)) {
      // A page freed from anywhere in the list (the LRU flush frees pages away from the tail).
      pool.evict(page);
      reference.evict(page);
    } else if (pool.resident_pages() > 0) {
      // The tail's neighbourhood: a page among the last ten.
      std::uint32_t victim = pool.lru_tail();
      for (auto k = rng() % 10; k > 0 && pool.lru_previous(victim) != BufferPool::kNone; --k) victim = pool.lru_previous(victim);
      pool.evict(victim);
      reference.evict(victim);
    }
    max_entries = std::max(max_entries, pool.ring_entries());
    if (step % 50 == 0) {
      std::vector<std::uint32_t> walked;
      std::uint32_t old_count = 0;
      for (std::uint32_t p = pool.lru_tail(); p != BufferPool::kNone; p = pool.lru_previous(p)) {
        walked.push_back(p);
        old_count += pool.old(p);
        ASSERT_EQ(pool.old(p), reference.old(p)) << "step " << step << " page " << p;
      }
      ASSERT_TRUE(std::equal(walked.rbegin(), walked.rend(), reference.list.begin(), reference.list.end())) << "step " << step;
      ASSERT_EQ(old_count, reference.old_length) << "step " << step;
      ASSERT_EQ(pool.old_pages(), reference.old_length);
      ASSERT_TRUE(pool.list_consistent()) << "step " << step;
    }
  }
  EXPECT_GT(reference.freed_clock, 30000u);
  // Churn at the tail (an eviction and an insertion keep both sublists' lengths), then every young
  // page but the young sublist's last touched again: the young ring's back stays put while its front
  // grows, so its entries are mostly stale when it fills, and it is compacted.
  auto check_order = [&]() {
    std::vector<std::uint32_t> walked;
    for (std::uint32_t p = pool.lru_tail(); p != BufferPool::kNone; p = pool.lru_previous(p)) walked.push_back(p);
    return std::equal(walked.rbegin(), walked.rend(), reference.list.begin(), reference.list.end()) && pool.list_consistent();
  };
  auto insert_new_page = [&]() {
    std::uint32_t page = static_cast<std::uint32_t>(rng() % pages);
    while (pool.resident(page)) page = static_cast<std::uint32_t>(rng() % pages);
    pool.insert_reading(page, t);
    pool.read_done(page);
    reference.insert(page, t);
  };
  while (pool.free_frames() > 0) insert_new_page();  // a full pool: an old sublist, evictions at the tail
  for (int round = 0; round < 30; ++round) {
    for (int k = 0; k < 100; ++k) {
      t += 1e-4;
      const std::uint32_t victim = pool.lru_tail();
      pool.evict(victim);
      reference.evict(victim);
      insert_new_page();
    }
    std::vector<std::uint32_t> young(reference.list.begin(), reference.list.end() - reference.old_length - 1);
    for (auto page : young) {
      pool.touch(page, t);
      reference.touch(page, t);
    }
    max_entries = std::max(max_entries, pool.ring_entries());
    ASSERT_TRUE(check_order()) << "round " << round;
  }
  // The stale entries stay bounded: the rings are compacted, not grown without end.
  EXPECT_GT(pool.ring_compactions(), 0u);
  EXPECT_LT(max_entries, 8u * frames);
  std::printf("ring entries at most %zu for %u frames, %llu compactions\n", max_entries, frames,
              static_cast<unsigned long long>(pool.ring_compactions()));
}

// A pool far larger than the data (special keys: the replay path, not the preload) warms up in a
// replay bounded by the data, not by the pool's frames: 64 x (frames + 200k) touches took minutes
// for a 600 GiB pool over one small table.
TEST(Warmup, APoolFarLargerThanTheDataReplaysOnlyWhatTheDataHolds) {
  auto o = sysbench_options(1, 10'000, "special");
  SysbenchMix mix(o);
  DataLayout layout(o.tables, sysbench_table_shape(o.table_size, 16384));
  const std::uint32_t total = layout.total_pages();
  // 2^30 frames (16 TiB): the old cap allowed 64 x (2^30 + 200k) touches.
  const std::uint32_t frames = 1u << 30;
  BufferPool pool(total, frames, 0.37, 1.0);
  std::mt19937_64 rng(7);
  const std::uint64_t touches = functional_warmup(pool, layout, mix, rng, false);
  // The cap is checked per sysbench event: the last event's few pages may pass it.
  EXPECT_LE(touches, 64ull * (total + 200'000) + 1000);
  EXPECT_LE(pool.resident_pages(), total);
  EXPECT_GT(pool.resident_pages(), total / 2);
}

// The steady-state preload (engine/warmup.cpp) must leave the pool in the state the functional
// replay reaches: the same hit ratio when the replay goes on from either, within 1 point, for pools
// of a quarter to more than the whole of a data set of three B-tree levels; full, with its old
// sublist at its share; and for a data set that fits, every page resident.
TEST(Warmup, SteadyStatePreloadMatchesTheReplay) {
  auto o = sysbench_options(16, 1'000'000, "uniform");
  SysbenchMix mix(o);
  DataLayout layout(o.tables, sysbench_table_shape(o.table_size, 16384));
  ASSERT_EQ(layout.table(0).primary.height(), 3);
  const std::uint32_t total = layout.total_pages();
  for (double share : {0.25, 0.5, 0.75, 0.95, 1.1}) {
    auto frames = static_cast<std::uint32_t>(total * share);
    // The hit ratio of the replay going on from the warmed-up pool, over 2 x frames touches (a
    // fraction of a turnover, so the state it starts from shows), summed over three seeds.
    auto hit_ratio_after = [&](bool direct) {
      std::uint64_t touches = 0, misses = 0;
      for (std::uint64_t seed : {11, 12, 13}) {
        BufferPool pool(total, frames, 0.37, 1.0);
        std::mt19937_64 rng(seed);
        functional_warmup(pool, layout, mix, rng, direct);
        double t = 0;
        std::uint64_t m = 0;
        touches += replay_accesses(pool, layout, mix, rng, &t, ~0ull, 2ull * frames, &m);
        misses += m;
      }
      return 1.0 - static_cast<double>(misses) / static_cast<double>(touches);
    };
    {
      // The state as built, before any replay from it.
      BufferPool fresh(total, frames, 0.37, 1.0);
      std::mt19937_64 rng(11);
      SteadyStateSummary summary;
      ASSERT_TRUE(preload_steady_state(fresh, layout, mix, rng, &summary)) << share;
      EXPECT_EQ(fresh.resident_pages(), std::min(frames, total)) << share;
      EXPECT_NEAR(fresh.old_pages(), 0.37 * fresh.resident_pages(), 21) << share;
      EXPECT_TRUE(fresh.tail_scan_consistent());
      if (share > 1) {
        EXPECT_NEAR(summary.predicted_misses_per_txn, 0.0, 1e-12);
      }
    }
    double expected = hit_ratio_after(false), got = hit_ratio_after(true);
    std::printf("pool %.2f of the data set: hit ratio after the replay %.4f, after the preload %.4f\n", share, expected, got);
    EXPECT_NEAR(got, expected, 0.01) << "pool " << share << " of the data set";
    if (share > 1) {
      EXPECT_DOUBLE_EQ(got, 1.0);
      EXPECT_DOUBLE_EQ(expected, 1.0);
    }
  }
  // Keys that are not uniform keep the replay.
  o.rand_type = "special";
  SysbenchMix special(o);
  BufferPool pool(total, total / 2, 0.37, 1.0);
  std::mt19937_64 rng(11);
  EXPECT_FALSE(preload_steady_state(pool, layout, special, rng));
  EXPECT_EQ(pool.resident_pages(), 0u);
}

TEST(BTree, SysbenchGeometry) {
  // 64 x 12.5M rows: ~12M pages (~186 GB), clustered height 3 (anchors README, S000).
  DataLayout layout(64, sysbench_table_shape(12'500'000, 16384));
  double gb = layout.total_pages() * 16384.0 / 1e9;
  EXPECT_NEAR(gb, 186, 186 * 0.08);
  EXPECT_EQ(layout.table(0).primary.height(), 3);
}

TEST(Database, FullyCachedRunDoesNoReads) {
  auto r = run("sweep: {database.buffer_pool: [64MiB]}\n");
  EXPECT_EQ(r["innodb"][0]["page_reads_per_txn"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r["innodb"][0]["hit_ratio"].get<double>(), 1.0);
  EXPECT_GT(r["tps"].get<double>(), 0);
}

TEST(Database, BufferedDataFilesReadTheMissesTheOsPageCacheHolds) {
  // flush_method fsync on a 24 GiB host: the page cache holds the whole ~50 MB data set, so every
  // buffer-pool miss is a copy (no device read) and the run is faster than with O_DIRECT.
  auto r = run_points(load_scenarios_from_text(std::string(kSmallDatabase) + "sweep: {database.flush_method: [O_DIRECT, fsync]}\n", "t.yaml"), 2);
  const auto& direct = r[0];
  const auto& buffered = r[1];
  const double reads = buffered["innodb"][0]["page_reads_per_txn"].get<double>();
  ASSERT_GT(reads, 1.0);
  EXPECT_DOUBLE_EQ(buffered["innodb"][0]["page_cache_reads_per_txn"].get<double>(), reads);
  EXPECT_DOUBLE_EQ(buffered["devices"][0]["reads_per_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(direct["innodb"][0]["page_cache_reads_per_txn"].get<double>(), 0.0);
  EXPECT_GT(direct["devices"][0]["reads_per_s"].get<double>(), 0.0);
  EXPECT_GT(buffered["tps"].get<double>(), direct["tps"].get<double>());
  // A page cache of a quarter of the data: it serves part of the misses, and the device the rest.
  auto part = run("database: {buffer_pool: 8MiB, io_capacity: 2000, flush_method: fsync, page_cache: 12MiB}\n");
  const double part_reads = part["innodb"][0]["page_reads_per_txn"].get<double>();
  const double from_cache = part["innodb"][0]["page_cache_reads_per_txn"].get<double>();
  EXPECT_GT(from_cache, 0.0);
  EXPECT_LT(from_cache, part_reads);
  EXPECT_NEAR(part["devices"][0]["reads_per_s"].get<double>() / part["tps"].get<double>(), part_reads - from_cache,
              0.05 * part_reads);
}

TEST(Database, FlushLogAtCommitOneFsyncsEveryGroup) {
  auto r = run("database: {buffer_pool: 64MiB, flush_log_at_trx_commit: 1}\n");
  double fsyncs = r["innodb"][0]["redo_fsyncs_per_txn"].get<double>();
  EXPECT_GT(fsyncs, 0.0);
  EXPECT_LE(fsyncs, 1.0);  // group commit: at most one per transaction
}

TEST(Database, RedoPerTransactionAddsTheDataSetsPageSplits) {
  // Redo per writing transaction = its row changes x (the split-free redo per change + the data set's
  // splits per change x the redo per split) + the commit record: oltp_read_write changes 4 rows.
  std::string profile = mariadb_profile_with(
      "split-redo-profile.yaml", "{redo_bytes_per_row_change: 300B, redo_bytes_per_page_split: 16000B, page_splits_per_row_change: 0.02}");
  auto points = run_points(load_scenarios_from_text(small_database_with("database: {profile: " + profile +
                                                                        ", buffer_pool: 8MiB, io_capacity: 2000}\n"
                                                                        "sweep: {database.page_splits_per_row_change: [profile, 0.1]}\n"),
                                                    "t.yaml"),
                           2);
  constexpr double kRowChanges = 4;
  const double aged = kRowChanges * (300 + 0.02 * 16000) + poolsim::kCommitRedoBytes;
  const double fresh = kRowChanges * (300 + 0.1 * 16000) + poolsim::kCommitRedoBytes;
  // Transactions open at the window's ends log outside their count: a few tenths of a percent.
  EXPECT_NEAR(points[0]["innodb"][0]["redo_bytes_per_txn"].get<double>(), aged, 0.01 * aged);
  EXPECT_NEAR(points[1]["innodb"][0]["redo_bytes_per_txn"].get<double>(), fresh, 0.01 * fresh);
}

TEST(Database, RunsThatMeasureNothingSayWhy) {
  // Every transaction rolled back (three threads on ten rows deadlock each other): the warning says
  // so, instead of blaming transactions too long for the window.
  auto r = run("workload: {kind: sysbench, test: oltp_read_write, tables: 1, table_size: 10, rand_type: uniform, threads: 4}\n");
  ASSERT_EQ(r["transactions"].get<double>(), 0.0) << "the check needs a run that completes nothing";
  ASSERT_TRUE(r.contains("warnings"));
  EXPECT_CONTAINS(r["warnings"][0].get<std::string>(), "rolled back");
  // An open loop beyond the system's capacity stops its arrivals at a full backlog and says so,
  // in bounded time (it used to grow its queue, or its workers, until the process died).
  auto saturated = run("workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, rand_type: uniform, threads: 4, rate: 1e9/s}\n");
  ASSERT_TRUE(saturated.contains("warnings"));
  EXPECT_CONTAINS(saturated["warnings"].back().get<std::string>(), "saturated");
  EXPECT_GT(saturated["tps"].get<double>(), 0.0);
}

TEST(Database, FlushLogAtCommitTwoMakesNoFsyncPerCommit) {
  auto r = run("database: {buffer_pool: 64MiB, flush_log_at_trx_commit: 2}\n");
  double per_txn = r["innodb"][0]["redo_fsyncs_per_txn"].get<double>();
  double tps = r["tps"].get<double>();
  EXPECT_LT(per_txn * tps, 2.0);  // only the once-per-second background flush
  EXPECT_DOUBLE_EQ(r["breakdown_ms"]["log_fsync"].get<double>(), 0.0);
}

TEST(Database, AtomicWritesHalvePageWrites) {
  // The Shannon card supports atomic writes; with them InnoDB skips the doublewrite buffer.
  auto with_dw = run_points(load_scenarios_from_text(small_database_with("storage: {kind: local, device: shannon-direct-io-g3i}\n"
                                                                         "sweep: {database.atomic_writes: [false, true]}\n"),
                                                     "t.yaml"),
                            2);
  double doublewrite = with_dw[0]["innodb"][0]["page_writes_per_txn"].get<double>();
  double atomic = with_dw[1]["innodb"][0]["page_writes_per_txn"].get<double>();
  ASSERT_GT(doublewrite, 0);
  double data_dw = with_dw[0]["innodb"][0]["data_page_writes_per_txn"].get<double>();
  EXPECT_NEAR(doublewrite, 2 * data_dw, 0.02 * doublewrite);
  EXPECT_DOUBLE_EQ(with_dw[1]["innodb"][0]["doublewrite_pages_per_txn"].get<double>(), 0.0);
  EXPECT_LT(atomic, 0.6 * doublewrite);
}

TEST(Database, TpsRisesWithPoolSizeAndDeviceSpeed) {
  auto pools = run_points(load_scenarios_from_text(std::string(kSmallDatabase) +
                                                       "sweep: {database.buffer_pool: [4MiB, 16MiB, 64MiB]}\n",
                                                   "t.yaml"),
                          2);
  EXPECT_LT(pools[0]["tps"].get<double>(), pools[1]["tps"].get<double>());
  EXPECT_LT(pools[1]["tps"].get<double>(), pools[2]["tps"].get<double>());
  auto devices = run_points(load_scenarios_from_text(std::string(kSmallDatabase) +
                                                         "sweep: {storage.device: [samsung-850-pro, pcie4-nvme-tlc]}\n",
                                                     "t.yaml"),
                            2);
  EXPECT_LT(devices[0]["tps"].get<double>(), devices[1]["tps"].get<double>());
}

TEST(Database, LatencyRisesWithThreadsPastSaturation) {
  auto points = run_points(load_scenarios_from_text(std::string(kSmallDatabase) +
                                                        "sweep: {workload.threads: [8, 32]}\n",
                                                    "t.yaml"),
                           2);
  double tps8 = points[0]["tps"].get<double>(), tps32 = points[1]["tps"].get<double>();
  EXPECT_LT(tps32, tps8 * 1.15);  // saturated: throughput flat
  EXPECT_GT(points[1]["latency_ms"]["mean"].get<double>(), 3 * points[0]["latency_ms"]["mean"].get<double>());
  // Little's law for the closed loop of client threads: N = X * R.
  EXPECT_NEAR(tps32 * points[1]["latency_ms"]["mean"].get<double>() / 1e3, 32, 32 * 0.05);
}

TEST(Database, SinglePageFlushesShareTheDoublewriteBuffersEightSlots) {
  // MySQL before 8.0.20 and MariaDB up to 10.4 have one shared doublewrite buffer (doublewrite_files
  // 1): 120 pages for batches and 8 single-page slots, each held by a thread from its doublewrite copy
  // to its tablespace's fsync (buf_dblwr_write_single_page). Threads short of free pages then queue
  // for a slot, and the single-page flushes per second are bounded by 8 slots over the two flushes
  // (2 x 2 ms on this SATA SSD) each holds one for; without the limit no thread waits.
  std::string profile = mariadb_profile_with("single-page-slots-profile.yaml", "{free_page_policy: single_page_flush}");
  auto points = run_points(
      load_scenarios_from_text(small_pool_update_scenario(32, "profile: " + profile + ", ", "{database.doublewrite_files: [0, 1]}"), "t.yaml"), 2);
  const auto& unlimited = points[0]["innodb"][0];
  const auto& shared = points[1]["innodb"][0];
  EXPECT_DOUBLE_EQ(unlimited["single_page_slot_wait_ms_per_txn"].get<double>(), 0.0);
  EXPECT_GT(unlimited["single_page_flushes_per_s"].get<double>(), 0);
  EXPECT_GT(shared["single_page_slot_wait_ms_per_txn"].get<double>(), 0);
  const double kSlots = 8, kFlushesHeld = 2, kFlushLatency_s = 2e-3;  // samsung-850-pro's catalogue flush
  EXPECT_LE(shared["single_page_flushes_per_s"].get<double>(), kSlots / (kFlushesHeld * kFlushLatency_s));
}

TEST(Database, LruFlushGoesInstanceByInstanceUpToTheScanDepth) {
  // MySQL 5.6-8.0 and MariaDB <= 10.4 flush the LRU one buffer pool instance after the other
  // (buf_flush_LRU_lists; pc_flush_slot): each instance's batch holds at most lru_scan_depth pages and
  // is written, fsynced and freed before the next. With 4 instances x 100 pages and one cleaner, the
  // cleaner's share of 400 pages goes as batches of at most 100; MariaDB 10.5+ walks the tail once
  // (buf_flush_LRU_list_batch), up to io_capacity_max pages in one batch. A write-heavy run on a
  // 16 MiB pool (1,024 frames) of a SATA SSD, where the LRU flush writes most pages.
  const int kScanDepth = 100, kInstances = 4;
  std::string profile = mariadb_profile_with("lru-instances-profile.yaml", "{free_page_policy: single_page_flush}");
  std::string yaml = small_pool_update_scenario(16, "profile: " + profile + ", buffer_pool_instances: " + std::to_string(kInstances) + ", page_cleaners: 1, ",
                                                "{database.buffer_pool: [16MiB]}");
  auto points = run_points(load_scenarios_from_text(yaml, "t.yaml"), 1);
  ASSERT_FALSE(points[0].contains("error")) << points[0].dump();
  const auto& innodb = points[0]["innodb"][0];
  EXPECT_GT(innodb["lru_batches_per_s"].get<double>(), 0);
  EXPECT_LE(innodb["lru_batch_pages_max"].get<double>(), kScanDepth);
  EXPECT_GT(innodb["lru_batch_pages_max"].get<double>(), kScanDepth / 2);  // the tail is dirty: the batches fill
}

TEST(Database, EachDirtyingIsWrittenOnceWhateverTheCleaners) {
  // Every data-page write cleans a dirty page, so the writes of a run are at most the pages it
  // dirtied plus the pages dirty when it began (at most its frames). Four page cleaners take their
  // flush-list batches in one pass, each written in doublewrite-sized chunks: a page in a chunk not
  // yet written is still taken, and no other cleaner or LRU walk may take it again (session 43: the
  // later chunks were written by up to four cleaners, GreatSQL 8.0 at 140 GiB ran at half its TPS).
  std::string profile = mariadb_profile_with("cleaners-profile.yaml", "{free_page_policy: single_page_flush}");
  std::string yaml = small_pool_update_scenario(16, "profile: " + profile + ", buffer_pool_instances: 4, page_cleaners: 4, ",
                                                "{database.buffer_pool: [16MiB]}");
  yaml.replace(yaml.find("io_capacity: 200,"), std::string("io_capacity: 200,").size(), "io_capacity: 4000, io_capacity_max: 8000,");
  auto points = run_points(load_scenarios_from_text(yaml, "t.yaml"), 1);
  ASSERT_FALSE(points[0].contains("error")) << points[0].dump();
  const auto& innodb = points[0]["innodb"][0];
  const double transactions = points[0]["transactions"].get<double>();
  ASSERT_GT(transactions, 0);
  EXPECT_GT(innodb["data_page_writes_per_txn"].get<double>(), 0);
  EXPECT_LE(innodb["data_page_writes_per_txn"].get<double>(),
            innodb["pages_dirtied_per_txn"].get<double>() + innodb["frames"].get<double>() / transactions)
      << innodb.dump();
}

TEST(Database, DetectedWarmUpEndsAfterTheColdStart) {
  // A pool that starts empty: the warm-up is detected (MSER on the batch throughput) rather than
  // configured, and is reported.
  auto r = run_point(scenario_from(
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: samsung-850-pro}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, rand_type: uniform, threads: 4}\n"
      "database: {buffer_pool: 8MiB, io_capacity: 2000}\n"
      "simulation: {warmup: auto, batch: 0.25s, min_batches: 8, max_duration: 3s}\n"));
  EXPECT_EQ(r["warmup"], "detected");
  EXPECT_GE(r["warmup_s"].get<double>(), 10 * 0.25 - 1e-9);  // at least the batches MSER needs
  EXPECT_LE(r["warmup_s"].get<double>(), 3.0 + 0.25);
  EXPECT_GT(r["tps"].get<double>(), 0);
}

TEST(Database, SinglePageFlushIsTheVersionsFreePagePolicy) {
  // A write-heavy run on a pool of 256 frames and a SATA SSD. MariaDB 10.5+ (wait_for_page_cleaner)
  // wakes its page cleaner when the free list falls under half of lru_scan_depth and frees each
  // written page at once, so no thread waits (traces/local-vm: Innodb_buffer_pool_wait_free is 0 at
  // 1-16 threads) and no thread writes a page itself; MySQL 5.6-8.4 (single_page_flush) lets threads
  // run out of clean pages, and each then writes one LRU page itself, through the doublewrite buffer.
  // The fitted MariaDB profile with the other policy.
  std::string profile = mariadb_profile_with("single-page-profile.yaml", "{free_page_policy: single_page_flush}");
  auto points = run_points(
      load_scenarios_from_text(small_pool_update_scenario(16, "", "{database.profile: [mariadb-10.11, " + profile + "]}"), "t.yaml"), 2);
  const auto& waits = points[0]["innodb"][0];
  const auto& single = points[1]["innodb"][0];
  EXPECT_GT(waits["data_page_writes_per_txn"].get<double>(), 0.5);  // the cleaner writes the dirty tail
  EXPECT_DOUBLE_EQ(waits["free_page_waits_per_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(waits["single_page_flushes_per_s"].get<double>(), 0.0);
  EXPECT_GT(single["single_page_flushes_per_s"].get<double>(), 0);
  // Every page still goes through the doublewrite buffer: the two counts differ only by the batch in
  // flight at each end of the measured window (at most 120 pages, InnoDB's doublewrite batch).
  double data = single["data_page_writes_per_txn"].get<double>();
  double batch_per_txn = 120.0 / points[1]["transactions"].get<double>();
  EXPECT_NEAR(single["doublewrite_pages_per_txn"].get<double>(), data, 2 * batch_per_txn);
}

TEST(Database, ThreadConcurrencyLimitsThreadsInsideInnodb) {
  // innodb_thread_concurrency: a statement's work runs while its thread holds one of the slots. One
  // slot on a CPU-bound cached run serialises the statements (about one core's worth of them); as
  // many slots as threads changes nothing but the CPU's granularity.
  auto points = run_points(load_scenarios_from_text(std::string(kSmallDatabase) +
                                                        "sweep: {database.buffer_pool: [64MiB], database.thread_concurrency: [0, 1, 4]}\n",
                                                    "t.yaml"),
                           2);
  double free_tps = points[0]["tps"].get<double>(), one = points[1]["tps"].get<double>(), all = points[2]["tps"].get<double>();
  EXPECT_LT(one, 0.75 * free_tps);
  EXPECT_GT(points[1]["breakdown_ms"]["concurrency_queue"].get<double>(), 0.0);
  EXPECT_NEAR(all, free_tps, 0.05 * free_tps);
  EXPECT_EQ(points[2]["breakdown_ms"]["concurrency_queue"].get<double>(), 0.0);
  // The slots' occupancy: the one slot is never free while threads queue for it, and it is what
  // limits the run (its cores are not all busy); as many slots as threads are not all held (a
  // thread leaves InnoDB between statements), and the cores are the limit.
  EXPECT_FALSE(points[0]["innodb"][0].contains("thread_concurrency_utilisation"));
  EXPECT_GT(points[1]["innodb"][0]["thread_concurrency_utilisation"].get<double>(), 0.99);
  EXPECT_LE(points[1]["innodb"][0]["thread_concurrency_utilisation"].get<double>(), 1.0 + 1e-9);
  EXPECT_EQ(points[1]["bottleneck"]["kind"], "InnoDB thread concurrency");
  EXPECT_LT(points[2]["innodb"][0]["thread_concurrency_utilisation"].get<double>(), 0.9);
  EXPECT_EQ(points[2]["bottleneck"]["kind"], "compute CPU");
}

TEST(Database, SerialSectionQueueingHasItsOwnBreakdownEntry) {
  // Queueing for the profile's one-thread-at-a-time section is neither network nor CPU: with the
  // clients on the database host, no part of a transaction is network.
  const auto scenario = scenario_from(
      "compute: {cores: 16}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, rand_type: uniform, threads: 64}\n"
      "database: {profile: greatsql-8.0, buffer_pool: 256MiB, io_capacity: 2000}\n"
      "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 2s}\n");
  auto r = run_point(scenario);
  EXPECT_GT(r["breakdown_ms"]["serial_section"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r["breakdown_ms"]["network"].get<double>(), 0.0);
  // The section's utilisation obeys the utilisation law U = X S: every statement (qps, BEGIN and
  // COMMIT included) holds it for the profile's serial_section (up to the edges of the window).
  ASSERT_GT(scenario.profile.serial_section_s, 0.0);
  EXPECT_NEAR(r["innodb"][0]["serial_section_utilisation"].get<double>(), r["qps"].get<double>() * scenario.profile.serial_section_s,
              0.01 * r["qps"].get<double>() * scenario.profile.serial_section_s);
}

TEST(Database, ASaturatedSerialSectionReportsAtMostItsWholeWindow) {
  // A 20 ms section at 8 threads: the section is busy the whole window and each transaction's 20
  // statements queue for it far ahead of now. Its share is taken at the window's end: the clock
  // passes that before the report (the engine winds down), and the backlog taken then put the share
  // at 1.16. The CPUs' shares stay at or above 0 with bursts booked far ahead (their idle gaps are
  // not work: the storage node's cores had counted them).
  auto scenario = scenario_from(
      "compute: {cores: 4}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, rand_type: uniform, threads: 8}\n"
      "database: {profile: greatsql-8.0, buffer_pool: 256MiB, io_capacity: 2000}\n"
      "simulation: {warmup: 1s, batch: 1s, min_batches: 4, max_duration: 6s}\n");
  const double section_s = 20e-3;  // the test's: long enough to queue a whole transaction ahead
  scenario.profile.serial_section_s = section_s;
  auto r = run_point(scenario);
  const double share = r["innodb"][0]["serial_section_utilisation"].get<double>();
  EXPECT_LE(share, 1.0 + 1e-9);
  EXPECT_GE(share, 0.99);
  for (const auto& cpu : r["cpus"]) EXPECT_GE(cpu["utilisation"].get<double>(), 0.0) << cpu.dump();
  for (const auto& d : r["devices"]) EXPECT_GE(d["utilisation"].get<double>(), 0.0) << d.dump();
}

TEST(Database, OneInterruptCoreTakesTheReadersAndItsShareIsReported) {
  // A disk whose completions interrupt one core (one request queue): threads woken by their reads
  // run there. Point selects on a small pool, with the IO path's CPU (charged after each read) far
  // above the statement's, make the CPU after reads most of the work: the interrupt core saturates
  // while the other idles, and the report gives each core's share. The same run on an NVMe device
  // (a completion queue per CPU) has one shared queue and no such field.
  const std::string workload =
      "compute: {cores: 2}\n"
      "workload: {kind: sysbench, test: oltp_point_select, tables: 2, table_size: 100000, rand_type: uniform, threads: 16}\n"
      "database: {buffer_pool: 8MiB, io_capacity: 2000}\n"
      "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";
  auto one_core = run_point(scenario_from(
      workload +
      "devices: {one-queue-disk: {kind: virtual-disk, source: test, capacity: 100GiB, read_latency: 70us,\n"
      "          read_iops: 40000/s, read_bandwidth: 1GB/s, write_bandwidth: 1GB/s, write_latency: 70us,\n"
      "          write_iops: 30000/s, flush_latency: 100us, host_cpu_per_io: 300us,\n"
      "          completion_interrupts: one-core}}\n"
      "storage: {kind: local, device: one-queue-disk}\n"));
  const auto& cpu = one_core["cpus"][0];
  ASSERT_TRUE(cpu.contains("core_utilisation"));
  ASSERT_EQ(cpu["core_utilisation"].size(), 2u);
  EXPECT_EQ(cpu["irq_core"].get<int>(), 0);
  double core0 = cpu["core_utilisation"][0].get<double>(), core1 = cpu["core_utilisation"][1].get<double>();
  EXPECT_GT(one_core["innodb"][0]["page_reads_per_txn"].get<double>(), 0.5);
  EXPECT_GT(core0, 0.9) << "the interrupt core runs the threads its reads wake";
  EXPECT_LT(core1, 0.6 * core0);  // shared by the other work; ~equal shares if reads did not pin
  EXPECT_GT(cpu["bursts_per_s"].get<double>(), 0.0);
  EXPECT_GT(cpu["burst_mean_us"].get<double>(), 0.0);

  auto nvme = run_point(scenario_from(workload + "storage: {kind: local, device: pcie4-nvme-tlc}\n"));
  EXPECT_FALSE(nvme["cpus"][0].contains("core_utilisation"));
  EXPECT_FALSE(nvme["cpus"][0].contains("irq_core"));
}

TEST(Database, BackgroundCpuRunsBesideTheTransactions) {
  // The profile's background_per_txn is CPU InnoDB's background threads spend per committed
  // transaction (purge): it must load the cores by exactly that CPU x TPS / cores, and stay out of
  // the transactions' path. One thread on two cores on a cached pool: the same 200 us per
  // transaction charged on the path would cost ~10 % of the TPS.
  std::string profile = mariadb_profile_with("background-profile.yaml", "{cpu: {background_per_txn: 200us}}");
  const std::string cached =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, rand_type: uniform, threads: 1}\n"
      "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 4s}\n";
  auto plain = run_point(scenario_from(cached + "database: {buffer_pool: 1GiB}\n"));
  auto busy = run_point(scenario_from(cached + "database: {buffer_pool: 1GiB, profile: \"" + profile + "\"}\n"));
  const double tps_plain = plain["tps"].get<double>(), tps_busy = busy["tps"].get<double>();
  EXPECT_NEAR(tps_busy / tps_plain, 1.0, 0.04) << "background CPU slowed the transactions";
  const double added = busy["cpus"][0]["utilisation"].get<double>() - plain["cpus"][0]["utilisation"].get<double>();
  const double expected = 200e-6 * tps_busy / 2;
  EXPECT_NEAR(added, expected, 0.1 * expected);
}

TEST(Database, IdleWakeUpsAreChargedOnlyOnIdleCores) {
  // The profile's idle_wakeup_cpu is charged for a round trip whose burst starts on an idle core,
  // and the report gives the share of round trips that did and the CPU they cost. One thread on two
  // cores of a cached pool always finds a core idle; 16 threads saturate both, so almost none does.
  // What is charged is that share of every statement's offer: share x statements/s x the cost.
  const double wake_s = 30e-6;
  const std::string profile = mariadb_profile_with("wake-profile.yaml", "{idle_wakeup_cpu: 30us}");
  const std::string cached =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "database: {buffer_pool: 1GiB, profile: \"" + profile + "\"}\n"
      "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";
  auto run = [&](int threads) {
    return run_point(scenario_from(cached + "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, rand_type: uniform, threads: " +
                                   std::to_string(threads) + "}\n"));
  };
  const int statements_per_txn = 20;  // oltp_read_write: BEGIN, 18 statements, COMMIT; one round trip each
  for (int threads : {1, 16}) {
    auto r = run(threads);
    const auto& cpu = r["cpus"][0];
    ASSERT_TRUE(cpu.contains("idle_wakeup_share")) << threads << " threads";
    const double share = cpu["idle_wakeup_share"].get<double>();
    if (threads == 1) EXPECT_GT(share, 0.95);
    else EXPECT_LT(share, 0.1);
    const double offered_us_per_s = r["tps"].get<double>() * statements_per_txn * wake_s * 1e6;
    EXPECT_NEAR(cpu["idle_wakeup_cpu_us_per_s"].get<double>(), share * offered_us_per_s, 0.03 * offered_us_per_s) << threads << " threads";
  }
}

TEST(Database, MariaDbsZeroLowWaterMarkLeavesACachedPoolUnflushed) {
  // The whole data set in the pool, innodb_max_dirty_pages_pct_lwm = 0: MariaDB 10.5.9+ writes no
  // page until the dirty pages reach max_dirty_pages_pct or the checkpoint age nears the log's
  // capacity (traces/local-vm at 3 GiB: 0 pages written per transaction); adaptive flushing (MySQL)
  // writes pages from the checkpoint age on.
  auto profile_with = [](const std::string& policy) {
    return mariadb_profile_with("lwm-" + policy + ".yaml", "{zero_lwm_flushing: " + policy + "}");
  };
  const std::string base =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, rand_type: uniform, threads: 4}\n"
      "simulation: {warmup: 3s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";
  auto run_with = [&](const std::string& policy) {
    return run_point(scenario_from(base + "database: {buffer_pool: 256MiB, log_file_size: 256MiB, log_files_in_group: 2,"
                                          " max_dirty_pages_pct_lwm: 0%, profile: \"" + profile_with(policy) + "\"}\n"));
  };
  auto idle = run_with("at_max_dirty"), adaptive = run_with("adaptive");
  EXPECT_EQ(idle["innodb"][0]["data_page_writes_per_txn"].get<double>(), 0.0);
  EXPECT_GT(adaptive["innodb"][0]["data_page_writes_per_txn"].get<double>(), 0.05);
}

TEST(Database, TurnoverWarmUpRunsUntilThePoolHasTurnedOver) {
  // simulation.warmup_turnovers: after the configured warm-up, whole batches until the pool has read
  // that many times its frames; the result reports the turnovers reached. A pool that holds the
  // data set never turns over and stops at max_warmup. The series shows the dirty pages' share.
  const std::string base =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 1000000, rand_type: uniform, threads: 4}\n";
  auto r = run_point(scenario_from(base +
      "database: {buffer_pool: 128MiB, io_capacity: 2000}\n"
      "simulation: {warmup: 0.25s, warmup_turnovers: 2, max_warmup: 60s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n"));
  const double frames = r["innodb"][0]["frames"].get<double>();
  const double reads_per_s = r["innodb"][0]["page_reads_per_txn"].get<double>() * r["tps"].get<double>();
  EXPECT_GE(r["warmup_turnovers"].get<double>(), 2.0);
  // It stops within a batch of reaching them: one batch reads about reads_per_s x 0.25 s pages.
  EXPECT_LT(r["warmup_turnovers"].get<double>(), 2.0 + 1.5 * reads_per_s * 0.25 / frames);
  EXPECT_LT(r["warmup_s"].get<double>(), 60.0);
  ASSERT_FALSE(r["series"].empty());
  EXPECT_GT(r["series"][0]["dirty_pct"].get<double>(), 0.0);
  EXPECT_GT(r["series"][0]["data_page_writes_per_txn"].get<double>(), 0.0);

  auto cached = run_point(scenario_from(base +
      "database: {buffer_pool: 1GiB}\n"
      "simulation: {warmup: 0.5s, warmup_turnovers: 3, max_warmup: 2s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n"));
  EXPECT_NEAR(cached["warmup_s"].get<double>(), 2.0, 1e-6);
  EXPECT_LT(cached["warmup_turnovers"].get<double>(), 1.0);

  // A turnover warm-up has no known length: not with a detected warm-up nor with warm-up threads; and
  // only a database run has a pool to turn over.
  for (const char* bad : {"simulation: {warmup: auto, warmup_turnovers: 2}\n",
                          "simulation: {warmup: 1s, warmup_turnovers: 2}\nworkload: {kind: fio, fio: {rw: randread, bs: 16KiB, iodepth: 1, numjobs: 1}}\n",
                          "simulation: {warmup: 1s, warmup_turnovers: 2}\nworkload: {kind: sysbench, threads: 1, warmup_threads: 8}\n"}) {
    EXPECT_CONTAINS(load_error_on_a_local_ssd(bad), "simulation.warmup_turnovers") << bad;
  }
}

TEST(Database, FastForwardReachesTheTimedWarmUpsFlushingState) {
  // simulation.warmup_fast_forward: the turnovers reached without timing (the page accesses, the
  // dirtying and the page cleaner's flushes replayed at the first warm-up's pace), then the warm-up
  // again, timed. It ends where the timed warm-up of as many turnovers ends: the same TPS within the
  // two runs' 95 % intervals (batch means of one-second batches, the page cleaner's period), and the
  // same pages written per transaction and share of dirty pages within what the timed warm-up itself
  // still drifts by when run twice as long (S000's 8.0 local 93 GiB 8-thread point, 4 -> 8 turnovers:
  // 25.1 -> 25.6 % dirty, 4.04 -> 4.08 pages written per transaction; scenarios/seeds/README.md).
  constexpr double kFlushingStateDriftRatio = 0.02;
  const std::string base =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 1000000, rand_type: uniform, threads: 4}\n"
      "database: {buffer_pool: 128MiB, io_capacity: 2000, log_file_size: 48MiB}\n";
  const std::string sim = "warmup: 1s, warmup_turnovers: 30, max_warmup: 600s, batch: 1s, min_batches: 10, max_duration: 10s";
  auto timed = run_point(scenario_from(base + "simulation: {" + sim + "}\n"));
  auto fast = run_point(scenario_from(base + "simulation: {" + sim + ", warmup_fast_forward: true}\n"));
  EXPECT_GT(fast["warmup_fast_forward_s"].get<double>(), 5.0);
  EXPECT_NEAR(fast["warmup_s"].get<double>(), 2.0, 1e-9);  // the two timed warm-ups, no more: the fast-forward reached the turnovers
  EXPECT_GE(fast["warmup_turnovers"].get<double>(), 30.0);
  auto series = [](const nlohmann::ordered_json& r, const char* key) {
    BatchMeans b;
    for (const auto& batch : r["series"]) b.add(batch[key].get<double>());
    return b;
  };
  auto expect_same_state = [&](const nlohmann::ordered_json& timed_run, const nlohmann::ordered_json& fast_run) {
    const auto timed_writes = series(timed_run, "data_page_writes_per_txn").estimate(0.95);
    const auto fast_writes = series(fast_run, "data_page_writes_per_txn").estimate(0.95);
    const auto timed_dirty = series(timed_run, "dirty_pct"), fast_dirty = series(fast_run, "dirty_pct");
    std::printf("timed: %.1f TPS +- %.1f, %.3f +- %.3f pages written per txn, dirty %.2f %%; "
                "fast-forward (%.0f virtual s): %.1f +- %.1f, %.3f +- %.3f, %.2f %%\n",
                timed_run["tps"].get<double>(), timed_run["ci95"]["tps"].get<double>(), timed_writes.mean, timed_writes.half_width,
                timed_dirty.estimate(0.95).mean, fast_run["warmup_fast_forward_s"].get<double>(), fast_run["tps"].get<double>(),
                fast_run["ci95"]["tps"].get<double>(), fast_writes.mean, fast_writes.half_width, fast_dirty.estimate(0.95).mean);
    EXPECT_NEAR(fast_run["tps"].get<double>(), timed_run["tps"].get<double>(), timed_run["ci95"]["tps"].get<double>() + fast_run["ci95"]["tps"].get<double>());
    EXPECT_NEAR(fast_writes.mean, timed_writes.mean, kFlushingStateDriftRatio * timed_writes.mean);
    EXPECT_NEAR(fast_dirty.estimate(0.95).mean, timed_dirty.estimate(0.95).mean, kFlushingStateDriftRatio * timed_dirty.estimate(0.95).mean);
  };
  expect_same_state(timed, fast);

  // simulation.fast_forward_steady: the replay ends once MSER-5 finds its pages written per second and
  // its dirty pages steady (at least 10 batches of 5 virtual seconds), before turnovers that would
  // take longer (here 150, 88 virtual s), and no timed turnovers follow. It stops after ~65 virtual s,
  // so it is held against a timed warm-up of that length (120 turnovers, 72 s; the state still drifts
  // between 30 and 120 turnovers: 27.8 -> 26.9 % dirty).
  const std::string long_sim = "warmup: 1s, warmup_turnovers: 150, max_warmup: 600s, batch: 1s, min_batches: 10, max_duration: 10s";
  auto timed_long = run_point(scenario_from(base + "simulation: {" + std::regex_replace(long_sim, std::regex("150"), "120") + "}\n"));
  auto steady = run_point(scenario_from(base + "simulation: {" + long_sim + ", warmup_fast_forward: true, fast_forward_steady: true}\n"));
  EXPECT_TRUE(steady["warmup_fast_forward_steady"].get<bool>());
  EXPECT_GE(steady["warmup_fast_forward_s"].get<double>(), 50.0);
  EXPECT_NEAR(steady["warmup_s"].get<double>(), 2.0, 1e-9);
  EXPECT_LT(steady["warmup_turnovers"].get<double>(), 150.0);
  expect_same_state(timed_long, steady);

  // A pool that holds the data set never turns over: the fast-forward runs to max_warmup, where the
  // timed warm-up stops too (only the pages writes modify are replayed then: nothing is evicted).
  const std::string fits_sim = "warmup: 1s, warmup_turnovers: 3, max_warmup: 120s, batch: 1s, min_batches: 10, max_duration: 10s";
  const std::string fits = std::regex_replace(base, std::regex("buffer_pool: 128MiB"), "buffer_pool: 2GiB");
  auto timed_fits = run_point(scenario_from(fits + "simulation: {" + fits_sim + "}\n"));
  auto fast_fits = run_point(scenario_from(fits + "simulation: {" + fits_sim + ", warmup_fast_forward: true}\n"));
  EXPECT_NEAR(fast_fits["warmup_fast_forward_s"].get<double>(), 118.0, 1.0);
  EXPECT_LT(fast_fits["warmup_turnovers"].get<double>(), 1.0);
  expect_same_state(timed_fits, fast_fits);
  auto steady_fits =
      run_point(scenario_from(fits + "simulation: {" + fits_sim + ", warmup_fast_forward: true, fast_forward_steady: true}\n"));
  EXPECT_TRUE(steady_fits["warmup_fast_forward_steady"].get<bool>());
  EXPECT_LT(steady_fits["warmup_fast_forward_s"].get<double>(), 118.0);
  expect_same_state(timed_fits, steady_fits);

  // It needs a timed warm-up to set its pace; without turnovers to reach it does nothing.
  EXPECT_CONTAINS(load_error_on_a_local_ssd("simulation: {warmup: 0s, warmup_turnovers: 2, warmup_fast_forward: true}\n"
                                            "workload: {kind: sysbench, threads: 1}\n"),
                  "simulation.warmup_fast_forward");
  auto inert = run_point(scenario_from(base + "simulation: {warmup: 1s, warmup_fast_forward: true, batch: 1s, min_batches: 2, max_duration: 2s}\n"));
  EXPECT_EQ(inert["warmup_fast_forward_s"].get<double>(), 0.0);
  EXPECT_NEAR(inert["warmup_s"].get<double>(), 1.0, 1e-9);

  // Its two timed stretches have their own lengths when set (fast_forward_pace, fast_forward_settle),
  // `warmup` otherwise; a zero pace cannot measure one.
  auto stretches = run_point(scenario_from(base + "simulation: {warmup: 1s, warmup_turnovers: 5, max_warmup: 600s, batch: 1s, min_batches: 2, "
                                                  "max_duration: 2s, warmup_fast_forward: true, fast_forward_pace: 2s, fast_forward_settle: 0.5s}\n"));
  EXPECT_NEAR(stretches["warmup_s"].get<double>(), 2.5, 1e-9);
  EXPECT_GT(stretches["warmup_fast_forward_s"].get<double>(), 0.0);  // whole virtual seconds: 1 here
  EXPECT_GE(stretches["warmup_turnovers"].get<double>(), 5.0);
  EXPECT_CONTAINS(load_error_on_a_local_ssd("simulation: {warmup: 1s, warmup_turnovers: 2, warmup_fast_forward: true, fast_forward_pace: 0s}\n"
                                            "workload: {kind: sysbench, threads: 1}\n"),
                  "simulation.fast_forward_pace");
}

TEST(Database, WarmUpThreadsStopWhenTheMeasurementStarts) {
  // workload.warmup_threads loads the warm-up only: one measured thread on two cores runs as fast as
  // without the extra warm-up threads (were they still running, it would share the cores with them).
  const std::string base =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: pcie4-nvme-tlc}\n"
      "database: {buffer_pool: 256MiB}\n"
      "simulation: {warmup: 1s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";
  auto one = run_point(scenario_from(base + "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, threads: 1}\n"));
  auto warmed = run_point(scenario_from(base + "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, threads: 1, warmup_threads: 8}\n"));
  EXPECT_NEAR(warmed["tps"].get<double>() / one["tps"].get<double>(), 1.0, 0.05);
  EXPECT_LT(warmed["cpus"][0]["utilisation"].get<double>(), 0.75);  // one thread's worth, not eight
  // An open loop or a detected warm-up cannot have warm-up threads: an error naming the key.
  for (const char* bad : {"workload: {kind: sysbench, tables: 2, table_size: 10000, threads: 1, warmup_threads: 8, rate: 100/s}\n",
                          "workload: {kind: sysbench, tables: 2, table_size: 10000, threads: 1, warmup_threads: 8}\nsimulation: {warmup: auto}\n"}) {
    EXPECT_CONTAINS(load_error_on_a_local_ssd(bad), "workload.warmup_threads") << bad;
  }
}

TEST(Database, FlushNeighborsWriteTheDirtyRunAroundEachVictim) {
  // innodb_flush_neighbors = 1: a page the page cleaner writes takes along the unbroken run of dirty
  // pages around it in its 64-page extent (old ones only in an LRU flush: buf_flush_try_neighbors).
  // MySQL does it on any device; MariaDB only on a device it finds rotational, so on an SSD its run is
  // the same, event for event, as with the setting off. Each point runs in its own process (run_points).
  const std::string base =
      "compute: {cores: 2}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 1000000, rand_type: uniform, threads: 4}\n"
      "simulation: {warmup: 3s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";
  const std::string mariadb = mariadb_profile_with("neighbors-mariadb.yaml", "{}");
  auto point = [&](const std::string& device, const std::string& profile, int neighbors) {
    return scenario_from(base + "storage: {kind: local, device: " + device + "}\n" +
                         "database: {buffer_pool: 128MiB, io_capacity: 2000, flush_neighbors: " + std::to_string(neighbors) +
                         (profile.empty() ? "" : ", profile: \"" + profile + "\"") + "}\n");
  };
  auto r = run_points({point("pcie4-nvme-tlc", "greatsql-8.0", 0), point("pcie4-nvme-tlc", "greatsql-8.0", 1), point("pcie4-nvme-tlc", mariadb, 0),
                       point("pcie4-nvme-tlc", mariadb, 1), point("ram-tmpfs", mariadb, 1)},
                      2);
  auto neighbors = [](const nlohmann::ordered_json& p) { return p["innodb"][0]["neighbor_pages_per_txn"].get<double>(); };
  EXPECT_EQ(neighbors(r[0]), 0.0);
  EXPECT_GT(neighbors(r[1]), 0.05);  // MySQL (GreatSQL 8.0), an SSD
  EXPECT_EQ(neighbors(r[3]), 0.0);   // MariaDB, an SSD: as with the setting off
  EXPECT_EQ(r[3]["tps"], r[2]["tps"]);
  EXPECT_EQ(r[3]["innodb"][0]["data_page_writes_per_txn"], r[2]["innodb"][0]["data_page_writes_per_txn"]);
  EXPECT_GT(neighbors(r[4]), 0.05);  // MariaDB, tmpfs: no block device, so "rotational"
  // Neighbours are written pages: never more of them than of all the pages written.
  EXPECT_LE(neighbors(r[1]), r[1]["innodb"][0]["data_page_writes_per_txn"].get<double>());
}

TEST(Database, MariadbKeepsWhatItsLruFlushWroteAndTakesYoungNeighbours) {
  // lru_written_pages: MariaDB 10.11.19 leaves the pages an LRU flush writes in the LRU list, clean,
  // and takes an LRU victim's dirty neighbours whether old or young (traces/local-vm/lru-snapshot);
  // the older code freed what it wrote and took old neighbours only. Kept pages can be dirtied again
  // before a walk frees them, so the same run writes more, and more neighbours. Each point in its own
  // process (run_points).
  const std::string base =
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: ram-tmpfs}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 1000000, rand_type: uniform, threads: 4}\n"
      "simulation: {warmup: 3s, batch: 0.25s, min_batches: 8, max_duration: 3s}\n";
  auto point = [&](const std::string& kept_or_freed) {
    const std::string profile = mariadb_profile_with("lru-" + kept_or_freed + ".yaml", "{lru_written_pages: " + kept_or_freed + "}");
    return scenario_from(base + "database: {buffer_pool: 128MiB, io_capacity: 2000, flush_neighbors: 1, profile: \"" + profile + "\"}\n");
  };
  auto r = run_points({point("freed"), point("kept")}, 2);
  auto db = [&](int i, const char* key) { return r[i]["innodb"][0][key].get<double>(); };
  EXPECT_GT(db(1, "data_page_writes_per_txn"), db(0, "data_page_writes_per_txn"));
  EXPECT_GT(db(1, "neighbor_pages_per_txn"), db(0, "neighbor_pages_per_txn"));
  EXPECT_GT(db(1, "pages_dirtied_per_txn"), db(0, "pages_dirtied_per_txn"));
  std::cout << "freed / kept: data pages written per txn " << db(0, "data_page_writes_per_txn") << " / " << db(1, "data_page_writes_per_txn")
            << ", neighbours " << db(0, "neighbor_pages_per_txn") << " / " << db(1, "neighbor_pages_per_txn") << "\n";
}

// One client thread on a cached pool without an fsync per commit, with a MariaDB profile changed by
// `profile_changes`: a transaction's latency is a fixed part plus the sum of its statements' CPU.
Scenario one_thread_cached_point(const std::string& name, const std::string& profile_changes, int seconds) {
  const std::string profile = mariadb_profile_with(name + ".yaml", profile_changes);
  return scenario_from(
      "compute: {cores: 2}\n"
      "storage: {kind: local, device: ram-tmpfs}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 10000, rand_type: uniform, threads: 1}\n"
      "simulation: {warmup: 1s, batch: 1s, min_batches: " + std::to_string(seconds) + ", max_duration: " + std::to_string(seconds) + "s}\n"
      "database: {buffer_pool: 1GiB, flush_log_at_trx_commit: 2, profile: \"" + profile + "\"}\n");
}

// The fast-forward's replay of a pool holding the data draws the write statements alone: the same
// statements as a whole transaction's writes (the DELETE's id re-inserted), keys still uniform; a
// test without writes gives none.
TEST(Workload, WritesOnlyDrawsTheTransactionsWriteStatements) {
  auto o = sysbench_options(4, 100000, "uniform");
  SysbenchMix mix(o);
  std::mt19937_64 rng(5);
  std::vector<Statement> whole, writes;
  mix.next(rng, whole);
  std::vector<StatementKind> expected;
  for (const auto& st : whole)
    if (is_write(st.kind)) expected.push_back(st.kind);
  ASSERT_EQ(expected.size(), 4u);
  constexpr int kDraws = 20000;
  double id_sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    mix.next(rng, writes, /*writes_only=*/true);
    ASSERT_EQ(writes.size(), expected.size());
    for (std::size_t j = 0; j < writes.size(); ++j) EXPECT_EQ(writes[j].kind, expected[j]);
    EXPECT_EQ(writes[3].id, writes[2].id);
    id_sum += static_cast<double>(writes[0].id);
  }
  // Uniform ids on [0, table_size): mean table_size / 2, standard error table_size / sqrt(12 n).
  const double standard_error = o.table_size / std::sqrt(12.0 * kDraws);
  EXPECT_NEAR(id_sum / kDraws, o.table_size / 2.0, 4 * standard_error);
  o.test = "oltp_point_select";
  SysbenchMix selects(o);
  selects.next(rng, writes, /*writes_only=*/true);
  EXPECT_TRUE(writes.empty());
}

// By Monte Carlo, one oltp_read_write transaction's statement CPU summed, `draws` times, in ms of the
// point's cores, each statement's CPU drawn by `draw(mean_s, rng)`; returned sorted.
std::vector<double> transaction_cpu_sums_ms(const Scenario& point, int draws,
                                            const std::function<double(double, std::mt19937_64&)>& draw) {
  auto o = sysbench_options(2, 10000, "uniform");
  SysbenchMix mix(o);
  std::mt19937_64 rng(7);
  std::vector<Statement> statements;
  mix.next(rng, statements);
  std::vector<double> sums;
  for (int i = 0; i < draws; ++i) {
    double sum = 0;
    for (const auto& st : statements) {
      const double m = point.profile.statement_cpu_s[static_cast<int>(st.kind)];
      if (m > 0) sum += draw(m, rng);
    }
    sums.push_back(sum * 1e3 / point.compute.core_speed);
  }
  std::sort(sums.begin(), sums.end());
  return sums;
}

// Quantile q of sorted `sums` less their mean.
double spread_above_mean(const std::vector<double>& sums, double q) {
  double mean = 0;
  for (double x : sums) mean += x / sums.size();
  return sums[static_cast<size_t>(q * sums.size())] - mean;
}

TEST(Database, StatementCpuVariabilitySpreadsTheLatencyAsASumOfGammas) {
  // statement_cpu_scv: each statement's server CPU is a gamma draw with its kind's mean. One thread, a
  // cached pool, no fsync per commit: a transaction's latency is a fixed part plus the sum of its
  // statements' draws, so the mean stays and the 95th percentile moves out by that sum's own
  // (computed here by Monte Carlo from the profile's costs). Each point in its own process.
  const double scv = 1.0;
  const auto fixed = one_thread_cached_point("scv-0", "{statement_cpu_scv: 0}", 20);
  auto r = run_points({fixed, one_thread_cached_point("scv-1", "{statement_cpu_scv: 1.0}", 20)}, 2);
  const auto& lat0 = r[0]["latency_ms"];
  const auto& lat1 = r[1]["latency_ms"];
  EXPECT_NEAR(lat1["mean"].get<double>(), lat0["mean"].get<double>(), 0.03 * lat0["mean"].get<double>());
  const double spread_ms = spread_above_mean(transaction_cpu_sums_ms(fixed, 200000, [&](double m, std::mt19937_64& rng) {
    return std::gamma_distribution<double>(1.0 / scv, m * scv)(rng);
  }), 0.95);
  const double simulated_ms = lat1["p95"].get<double>() - lat1["mean"].get<double>();
  std::cout << "p95 - mean: simulated " << simulated_ms << " ms, sum of gammas " << spread_ms << " ms, without draws "
            << lat0["p95"].get<double>() - lat0["mean"].get<double>() << " ms\n";
  EXPECT_NEAR(simulated_ms, spread_ms, 0.2 * spread_ms);
  // Without the draws, the latency hardly spreads.
  EXPECT_LT(lat0["p95"].get<double>() - lat0["mean"].get<double>(), 0.25 * spread_ms);
}

TEST(Database, StatementCpuTailKeepsTheMeanAndMovesTheP99AsItsDraws) {
  // statement_cpu_tail: a share of each statement's mean CPU moved into rare exponential bursts.
  // One thread, cached, no fsync per commit, as above: the mean stays, and the 99th percentile
  // moves out by what the sum of one transaction's draws (body and tail, Monte Carlo) gives.
  const double scv = 0.42, share = 0.2, burst_s = 2e-3;  // a tail in ~15 % of the transactions: p99 well inside it
  const auto body_only = one_thread_cached_point("tail-0", "{statement_cpu_scv: 0.42}", 40);
  auto r = run_points({body_only, one_thread_cached_point("tail-1", "{statement_cpu_scv: 0.42, statement_cpu_tail: {share: 0.2, mean: 2ms}}", 40)}, 2);
  const auto& lat0 = r[0]["latency_ms"];
  const auto& lat1 = r[1]["latency_ms"];
  EXPECT_NEAR(lat1["mean"].get<double>(), lat0["mean"].get<double>(), 0.03 * lat0["mean"].get<double>());
  const double spread_ms = spread_above_mean(transaction_cpu_sums_ms(body_only, 400000, [&](double m, std::mt19937_64& rng) {
    double cpu = std::gamma_distribution<double>(1.0 / scv, m * (1 - share) * scv)(rng);
    if (std::uniform_real_distribution<double>(0, 1)(rng) < share * m / burst_s)
      cpu += std::exponential_distribution<double>(1.0 / burst_s)(rng);
    return cpu;
  }), 0.99);
  const double simulated_ms = lat1["p99"].get<double>() - lat1["mean"].get<double>();
  std::cout << "p99 - mean: simulated " << simulated_ms << " ms, sum of draws " << spread_ms << " ms, body only "
            << lat0["p99"].get<double>() - lat0["mean"].get<double>() << " ms\n";
  EXPECT_NEAR(simulated_ms, spread_ms, 0.25 * spread_ms);
  EXPECT_GT(simulated_ms, 1.5 * (lat0["p99"].get<double>() - lat0["mean"].get<double>()));
}

TEST(Database, ThePoolsFramesAreItsPagesLessTheDescriptors) {
  // pool_frames_ratio: MariaDB 10.11 gives 64,896 frames to a 1 GiB pool (0.990234 of 65,536).
  const std::string profile = mariadb_profile_with("frames-profile.yaml", "{pool_frames_ratio: 0.990234}");
  auto r = run("database: {buffer_pool: 1GiB, profile: \"" + profile + "\"}\nsimulation: {warmup: 0.1s, batch: 0.1s, min_batches: 2, max_duration: 0.2s}\n");
  EXPECT_EQ(r["innodb"][0]["frames"].get<double>(), 64896.0);
}

TEST(Results, APointThatCompletesNoTransactionSaysItsLatencyIsNotMeasured) {
  // An empty histogram reads as zero latency; the point must say that nothing was measured.
  auto points = load_scenarios_from_text(kSmallDatabase, "t.yaml", {parse_override("compute.core_speed=1e-9")});
  auto r = run_point(points.front());
  EXPECT_EQ(r["transactions"].get<double>(), 0.0);
  ASSERT_TRUE(r.contains("warnings"));
  EXPECT_NE(r["warnings"][0].get<std::string>().find("no transaction completed"), std::string::npos);
  EXPECT_NE(r["warnings"][0].get<std::string>().find("took longer"), std::string::npos);
  EXPECT_FALSE(run(std::string()).contains("warnings"));
}

TEST(Results, ARateThatStartsNoTransactionSaysSoRatherThanThatTheyTookLonger) {
  // workload.rate 1e-300/s: nothing arrives, which the warning used to blame on slow transactions.
  auto points = load_scenarios_from_text(kSmallDatabase, "t.yaml", {parse_override("workload.rate=1e-300/s")});
  auto r = run_point(points.front());
  EXPECT_EQ(r["transactions"].get<double>(), 0.0);
  ASSERT_TRUE(r.contains("warnings"));
  const auto warning = r["warnings"][0].get<std::string>();
  EXPECT_NE(warning.find("no transaction arrived"), std::string::npos) << warning;
  EXPECT_EQ(warning.find("took longer"), std::string::npos) << warning;
}

TEST(Database, ATransactionOfBeginAndCommitAloneRunsWithoutWarmingThePool) {
  // No statement touches a page: the warm-up replay, which ran until the pool filled, never ended.
  auto r = run("workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, threads: 4, point_selects: 0,\n"
               "           simple_ranges: 0, sum_ranges: 0, order_ranges: 0, distinct_ranges: 0, index_updates: 0,\n"
               "           non_index_updates: 0, delete_inserts: 0}\n");
  EXPECT_GT(r["tps"].get<double>(), 0.0);
  EXPECT_EQ(r["innodb"][0]["page_reads_per_txn"].get<double>(), 0.0);
}

TEST(Database, APageCacheLargerThanAnyDataHoldsItAll) {
  // compute.memory far past the data: the OS page cache's size in pages overflowed to none (exit 3).
  auto r = run("compute: {cores: 2, memory: 1e20TB}\ndatabase: {buffer_pool: 8MiB, io_capacity: 2000, flush_method: fsync}\n");
  EXPECT_GT(r["tps"].get<double>(), 0.0);
}
