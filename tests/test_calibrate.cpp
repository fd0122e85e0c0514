// Trace parsing (real files from traces/, and malformed ones), calibration and validation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "calibration.h"
#include "core/errors.h"
#include "test_support.h"
#include "trace.h"

using namespace poolsim;
using poolsim::testing::run_cli;
using poolsim::testing::temp_path;
using poolsim::testing::write_temp;

namespace {
#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)
const std::string kTraces = std::string(POOLSIM_SOURCE_DIR) + "/traces";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

// Copies a trace directory so a test can damage it.
std::string copy_trace(const std::string& from, const std::string& name) {
  std::string to = temp_path(name);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  return to;
}
}  // namespace

TEST(Trace, ParsesALocalVmTrace) {
  auto t = load_trace(kTraces + "/local-vm/disk-bp1G-t16");
  EXPECT_EQ(t.sysbench.version, "1.0");
  EXPECT_NEAR(t.sysbench.tps, 242.43, 1e-9);
  EXPECT_NEAR(t.sysbench.latency_p95_ms, 99.33, 1e-9);
  EXPECT_EQ(t.sysbench.transactions, 10930u);
  EXPECT_FALSE(t.sysbench.intervals.empty());
  EXPECT_EQ(t.meta["workload"]["threads"].as<int>(), 16);
  EXPECT_GT(t.per_txn("Innodb_buffer_pool_reads").value(), 10);
  EXPECT_EQ(t.fio.size(), 8u);
}

TEST(Trace, ParsesASysbench05Trace) {
  auto t = load_trace(kTraces + "/mdev-13845/bp16G-rw22-t16");
  EXPECT_EQ(t.sysbench.version, "0.5");
  EXPECT_NEAR(t.sysbench.tps, 2640.45, 1e-9);
  EXPECT_NEAR(t.sysbench.latency_p95_ms, 10.15, 1e-9);
  EXPECT_FALSE(t.sysbench.intervals.empty());
}

TEST(Trace, TruncatedSysbenchLogNamesFileAndLine) {
  std::string log = "sysbench 1.0.20\n[ 5s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 1/1/1) lat (ms,95%): 5.00 err/s: 0.00 reconn/s: 0.00\n";
  auto e = error_of([&] { parse_sysbench_log(log, "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:2");
  EXPECT_CONTAINS(e, "truncated");
}

TEST(Trace, MalformedStatusLineNamesFileAndLine) {
  auto e = error_of([] { parse_status_tsv("Uptime\t10\nno tab here\n", "s.tsv"); });
  EXPECT_CONTAINS(e, "s.tsv:2");
}

TEST(Trace, BadMetaNamesKeyAndLine) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t16", "bad-meta");
  std::string meta = dir + "/meta.yaml";
  std::ofstream(meta) << "engine: {product: mariadb, version: \"10.11\"}\n"
                         "workload: {tables: 8, table_size: 1000, threads: 4}\n"
                         "server: {buffer_pool: 512}\n"
                         "host: {cores: 2}\nstorage: {kind: virtual-disk}\n";
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:3:");
  EXPECT_CONTAINS(e, "server.buffer_pool");
  EXPECT_CONTAINS(e, "has no unit");
}

TEST(Trace, BadFioJsonNamesFile) {
  auto e = error_of([] { parse_fio_json("{\"nope\": 1}", "fio/x.json"); });
  EXPECT_CONTAINS(e, "fio/x.json");
}

TEST(Calibrate, FitsAndValidatesEndToEnd) {
  std::string out = temp_path("fitted.yaml");
  std::string set = kTraces + "/local-vm/";
  auto c = run_cli("calibrate " + set + "tmpfs-bp512M-t1 " + set + "tmpfs-bp3G-t1 " + set + "tmpfs-bp3G-t4 " + set +
                   "tmpfs-bp512M-t4 -o " + out);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.err, "rms residual");
  EXPECT_TRUE(std::filesystem::exists(temp_path("fitted-devices.yaml")));
  // The profile loads as a profile (schema-valid) and records its traces.
  auto profile = load_profile(out);
  EXPECT_GT(profile.statement_cpu_s[static_cast<int>(StatementKind::PointSelect)], 0);
  EXPECT_CONTAINS(profile.source, "tmpfs-bp3G-t1");
  auto v = run_cli("validate --profile " + out + " " + set + "tmpfs-bp1G-t1 --format json --duration 4");
  ASSERT_EQ(v.exit_code, 0) << v.err;
  auto doc = nlohmann::json::parse(v.out);
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_TRUE(doc["rows"][0]["error_pct"].contains("tps"));
  EXPECT_TRUE(doc["summary"]["median_abs_error_pct"].contains("p95_ms"));
  // A threshold below the error exits 1.
  auto strict = run_cli("validate --profile " + out + " " + set + "tmpfs-bp1G-t1 --duration 4 --max-error 0.0001");
  EXPECT_EQ(strict.exit_code, 1);
}

TEST(Calibrate, BadTraceDirectoryExitsTwo) {
  std::string empty = temp_path("empty-trace");
  std::filesystem::create_directories(empty);
  auto r = run_cli("calibrate " + empty + " -o " + temp_path("never.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "meta.yaml");
  EXPECT_FALSE(std::filesystem::exists(temp_path("never.yaml")));
}
