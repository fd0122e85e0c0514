// The S000 seed (scenarios/seeds/greatsql-ib-pool.yaml) on the whole published table, every point
// warmed up to the flushing's steady state: 4 min 55 s on 2 cores with the fast-forwarded warm-up (session 22; 15 min 46 s timed, session 13), so label `long` (not in the README's
// default test command; `ctest --test-dir build -L long` runs it). The default suite checks the
// crossover rows (tests/test_seeds.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "scenario/scenario.h"
#include "sim/simulation.h"
#include "validation.h"

using namespace poolsim;

namespace {
const std::string kDir = std::string(POOLSIM_SOURCE_DIR) + "/scenarios/seeds/";
// RATCHETS at the error measured (scenarios/seeds/README.md, S000), NOT the target (every
// point within 10 %, not met). Session 7: the SSDs drain at the write amplification of the data they
// hold. Session 10: the SSDs suspend programs for reads, and a merged burst's statements book the
// serial section at their own times (median 5.5 %, max 30.7 %). Session 11: every point is warmed up
// until the pool has turned over 4 times, when the dirty pages and the flushing have levelled off (the
// seed measured 900 s rounds), and the four fitted numbers were refitted there: median 5.6 %, max
// 21.6 % (5.7 pool, 128 threads: the model has 5.7's pool and local on the same fitted ceiling);
// held-out rows median 10.5 % -> 7.5 %. Session 12: the binary log on and refitted, 5.7 flushes
// neighbours: median 5.2 %, max 21.6 % (16 min 15 s).
constexpr double kGreatsqlPointRatchetPct = 23;     // measured: max 22.4 % (5.7 local, 32 threads; session 43; 22.5 % in session 40, NVMe's queues in turn; 21.6 % before: 5.7 pool, 128 threads)
constexpr double kGreatsqlMedianRatchetPct = 5.5;   // measured: median 5.2 % over the 20 rows (session 39: 4.7 %; session 40: 5.1 %; session 43: 4.6 %)
// A verbatim copy of ../shared/anchors/greatsql-ib-nvme.csv (scenarios/seeds/README.md, S000), so the
// test runs wherever the clone is.
const std::string kAnchors = kDir + "greatsql-ib-nvme.csv";
}  // namespace

TEST(GreatsqlSeed, PublishedTableAndCrossover) {
  ValidationOptions options;
  options.jobs = 2;
  auto doc = validate_table(kDir + "greatsql-ib-pool.yaml", kAnchors, options);
  EXPECT_EQ(doc["summary"]["rows_compared"].get<int>(), 20);
  EXPECT_EQ(doc["summary"]["rows_skipped"].get<int>(), 10);
  std::map<std::string, double> tps, ci;  // "server storage threads": predicted TPS and its 95 % half-width
  for (const auto& row : doc["rows"]) {
    if (row.contains("skipped")) {
      EXPECT_NE(row["server"].get<std::string>().find("mysql"), std::string::npos) << row.dump();
      continue;
    }
    EXPECT_LE(std::fabs(row["error_pct"]["tps"].get<double>()), kGreatsqlPointRatchetPct) << row.dump();
    const std::string key =
        row["server"].get<std::string>() + " " + row["storage"].get<std::string>() + " " + row["threads"].get<std::string>();
    tps[key] = row["predicted"]["tps"].get<double>();
    ci[key] = row["predicted"]["tps_ci95"].get<double>();
  }
  EXPECT_LE(doc["summary"]["median_abs_error_pct"]["tps"].get<double>(), kGreatsqlMedianRatchetPct);
  // GreatSQL 8.0's crossover (session 40: NVMe serves its queues in turn, so the local SSD's redo
  // writes no longer wait behind the page cleaner's batches; scenarios/seeds/README.md, S000): the
  // pool slower at 8 threads beyond both CIs (published -4.4 %, model -1.5 %), faster at 16 and 32
  // beyond both CIs (published +4.9, +5.6 %; model +2.2, +7.0 %). At 64 threads the study's pool is
  // 1.6 % ahead and the model's 3.5 % behind (session 43; 1.8 % before the LRU walk stopped at a full
  // free list, as buf_flush_LRU_list_batch does: the pool's threads now find the free list empty
  // 2,414 times a second, 1,175 before): RATCHET there, the pool within 4 % of local. At 128
  // threads both sit on the fitted serial section (published -3.5 %, model -0.2 %): not asserted.
  const std::string pool = "greatsql-8.0 ib-nvmeof-pool ", local = "greatsql-8.0 local-nvme ";
  EXPECT_LT(tps[pool + "8"] + ci[pool + "8"], tps[local + "8"] - ci[local + "8"]);
  for (const char* threads : {"16", "32"})
    EXPECT_GT(tps[pool + threads] - ci[pool + threads], tps[local + threads] + ci[local + threads]) << threads;
  EXPECT_GE(tps[pool + "64"], 0.96 * tps[local + "64"]);
}

TEST(GreatsqlSeed, ALargerPoolDoesNotLoseThroughput) {
  // GreatSQL 8.0 on the local SSD at 64 threads, 93 and 140 GiB: more of the data cached, fewer reads,
  // and the same flushing (session 43). From session 39 to 42 the 140 GiB point ran at less than half
  // the 93 GiB one (6,397 against 13,819 TPS): the cleaners wrote a flush-list batch's later chunks
  // again and the LRU walk wrote the tail with the free list full (scenarios/seeds/README.md, S000),
  // and no test ran a pool past the published table's 93 GiB. The 186 GiB point is not asserted: at
  // 128 threads it dips below 140 GiB in sync-flush stalls (session 12), a mechanism the model has.
  auto points = run_points(load_scenarios(kDir + "greatsql-ib-pool.yaml", {{"sweep.variant", "[greatsql-8.0]"},
                                                                           {"sweep.storage.kind", "[local]"},
                                                                           {"sweep.workload.threads", "[64]"},
                                                                           {"sweep.database.buffer_pool", "[93GiB, 140GiB]"}}),
                           2);
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) ASSERT_FALSE(p.contains("error")) << p.dump();
  const double tps93 = points[0]["tps"].get<double>(), tps140 = points[1]["tps"].get<double>();
  std::printf("8.0 local 64 threads: 93 GiB %.0f +- %.0f TPS, 140 GiB %.0f +- %.0f\n", tps93, points[0]["ci95"]["tps"].get<double>(),
              tps140, points[1]["ci95"]["tps"].get<double>());
  EXPECT_GE(tps140 + points[1]["ci95"]["tps"].get<double>(), tps93 - points[0]["ci95"]["tps"].get<double>());
}
