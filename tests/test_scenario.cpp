// Scenario loading: defaults, overrides, sweeps, and the errors bad input gets (file, line, column,
// key, and a did-you-mean where one helps).
#include <gtest/gtest.h>

#include <sstream>
#include <yaml-cpp/yaml.h>

#include "scenario/scenario.h"
#include "test_support.h"

using namespace poolsim;

namespace {
// Loads and expects an InputError; returns its message.
std::string error_of(const std::string& yaml, const std::vector<Override>& overrides = {}) {
  try {
    load_scenarios_from_text(yaml, "bad.yaml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return "";
}
}  // namespace

TEST(Scenario, DefaultsFillAnEmptyScenario) {
  auto s = load_scenarios_from_text("{}", "empty.yaml").front();
  EXPECT_EQ(s.compute.count, 1);
  EXPECT_EQ(s.storage.kind, "local");
  EXPECT_EQ(s.fabric.transport, "rdma");
  EXPECT_DOUBLE_EQ(s.fabric.rate_Bps, 12.5e9);
  EXPECT_DOUBLE_EQ(s.simulation.target_rel_ci, 0.02);
}

TEST(Scenario, EthernetPresetsDefaultToTcp) {
  auto s = load_scenarios_from_text("fabric: {preset: eth-25g}", "x.yaml").front();
  EXPECT_EQ(s.fabric.transport, "tcp");
  EXPECT_DOUBLE_EQ(s.fabric.rate_Bps, 25e9 / 8);
}

TEST(Scenario, SweepIsTheCartesianProductWithParams) {
  auto points = load_scenarios_from_text("sweep:\n  storage.kind: [local, pool]\n  workload.fio.iodepth: [1, 8, 64]\n"
                                         "storage: {nodes: [{name: s1}]}\n",
                                         "x.yaml", {parse_override("compute.cores=8")});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].params["storage.kind"], "local");
  EXPECT_EQ(points[2].params["workload.fio.iodepth"], 64);
  EXPECT_EQ(points[3].params["storage.kind"], "pool");
  EXPECT_EQ(points[3].params["compute.cores"], 8);
  EXPECT_EQ(points[5].workload.fio.iodepth, 64);
  EXPECT_EQ(points[5].compute.cores, 8);
}

TEST(Scenario, SetCanSweep) {
  auto points = load_scenarios_from_text("{}", "x.yaml", {parse_override("sweep.workload.fio.iodepth=[1,2]")});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].workload.fio.iodepth, 2);
}

// A variant is one sweep value that sets several keys: file < variant < sweep < --set.
TEST(Scenario, VariantsSetSeveralKeysPerSweptValue) {
  const std::string yaml =
      "storage: {device: samsung-850-pro}\n"
      "workload: {kind: sysbench}\n"
      "variants:\n"
      "  ssd: {}\n"
      "  pcie-atomic: {storage.device: shannon-direct-io-g3i, database.atomic_writes: true}\n"
      "  pcie-nocsum: {storage.device: shannon-direct-io-g3i, database.checksum: none, workload.threads: 4}\n"
      "sweep:\n"
      "  variant: [ssd, pcie-atomic, pcie-nocsum]\n"
      "  workload.threads: [1, 8]\n";
  auto points = load_scenarios_from_text(yaml, "x.yaml");
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].params["variant"], "ssd");
  EXPECT_EQ(points[0].storage.device, "samsung-850-pro");
  EXPECT_FALSE(points[0].database.atomic_writes);
  EXPECT_EQ(points[2].params["variant"], "pcie-atomic");
  EXPECT_EQ(points[2].storage.device, "shannon-direct-io-g3i");
  EXPECT_TRUE(points[2].database.atomic_writes);
  EXPECT_EQ(points[3].params["workload.threads"], 8);
  EXPECT_EQ(points[4].database.checksum, "none");
  EXPECT_FALSE(points[4].database.atomic_writes);
  EXPECT_EQ(points[4].workload.threads, 1);  // the swept key wins over the variant's
  EXPECT_EQ(points[5].workload.threads, 8);
  // --set wins over the variant; `variant:` (file or --set) picks one without a sweep.
  auto one = load_scenarios_from_text(yaml, "x.yaml", {parse_override("variant=pcie-nocsum"), parse_override("database.checksum=crc32")}, ".", false);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].storage.device, "shannon-direct-io-g3i");
  EXPECT_EQ(one[0].database.checksum, "crc32");
  EXPECT_EQ(one[0].workload.threads, 4);
}

// A mapping given for a section sets the keys it names and keeps the section's others: replacing
// `database` with {checksum: none} dropped the file's atomic_writes (and a scenario's profile) unseen.
TEST(Scenario, AMappingForASectionSetsOnlyTheKeysItNames) {
  const std::string yaml =
      "storage: {device: samsung-850-pro}\n"
      "database: {atomic_writes: true, checksum: crc32}\n"
      "variants:\n"
      "  nocsum: {database: {checksum: none}}\n"
      "  pcie: {storage: {device: shannon-direct-io-g3i}, database.checksum: none}\n"
      "workload: {kind: sysbench}\n";
  auto set = load_scenarios_from_text(yaml, "x.yaml", {parse_override("database={checksum: none}")}).front();
  EXPECT_EQ(set.database.checksum, "none");
  EXPECT_TRUE(set.database.atomic_writes);
  EXPECT_EQ(set.params["database.checksum"], "none");  // the key the mapping set, not the section
  auto variant = load_scenarios_from_text(yaml + "variant: nocsum\n", "x.yaml").front();
  EXPECT_EQ(variant.database.checksum, "none");
  EXPECT_TRUE(variant.database.atomic_writes);
  auto pcie = load_scenarios_from_text(yaml + "variant: pcie\n", "x.yaml").front();
  EXPECT_EQ(pcie.storage.device, "shannon-direct-io-g3i");
  EXPECT_TRUE(pcie.database.atomic_writes);
  // --set wins over the variant's mapping for the key it gives, the variant keeps its others.
  auto both = load_scenarios_from_text(yaml + "variant: pcie\n", "x.yaml", {parse_override("database.checksum=crc32")}).front();
  EXPECT_EQ(both.database.checksum, "crc32");
  EXPECT_EQ(both.storage.device, "shannon-direct-io-g3i");
  // A key inside the mapping is checked and named like one given alone.
  auto e = error_of(yaml, {parse_override("database={chekcsum: none}")});
  EXPECT_CONTAINS(e, "--set database={chekcsum: none}");
  EXPECT_CONTAINS(e, "database.chekcsum");
  EXPECT_CONTAINS(e, "did you mean 'checksum'");
  // The file's own keys keep their file locations.
  e = error_of("database: {atomic_writes: maybe}\n", {parse_override("database={checksum: none}")});
  EXPECT_CONTAINS(e, "bad.yaml:1:27");
}

// --set wins over a swept key (the documented precedence): the axis goes and every point runs the
// --set's value; it was ignored, the sweep's values ran. Both --set X and --set sweep.X: an error.
TEST(Scenario, SetWinsOverASweptKey) {
  const std::string yaml = "sweep:\n  workload.fio.iodepth: [1, 8]\n  storage.kind: [local, pool]\nstorage: {nodes: [{name: s1}]}\n";
  auto points = load_scenarios_from_text(yaml, "x.yaml", {parse_override("workload.fio.iodepth=2")});
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) EXPECT_EQ(p.workload.fio.iodepth, 2);
  EXPECT_EQ(points[1].params["storage.kind"], "pool");
  auto e = error_of(yaml, {parse_override("workload.fio.iodepth=2"), parse_override("sweep.workload.fio.iodepth=[4]")});
  EXPECT_CONTAINS(e, "--set sweep.workload.fio.iodepth=[4]");
  EXPECT_CONTAINS(e, "also given by --set workload.fio.iodepth=2");
  // A pinned point (the Python bindings' Scenario.pinned): the sweep's one value is the --set's.
  points = load_scenarios_from_text(yaml, "x.yaml", {parse_override("workload.fio.iodepth=2"), parse_override("sweep.workload.fio.iodepth=[2]")});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].workload.fio.iodepth, 2);
}

// Axes given by --set run after the file's, in the order given (the last varies fastest), also one
// that replaces an axis the file sweeps: it kept the file's place, so the Python bindings' with_sweep
// had to blank the file's entry for its last axis to vary fastest.
TEST(Scenario, SetSweepAxesRunAfterTheFilesInTheirOrder) {
  const std::string yaml = "sweep:\n  workload.fio.iodepth: [1, 8]\n  storage.kind: [local, pool]\nstorage: {nodes: [{name: s1}]}\n";
  auto points = load_scenarios_from_text(yaml, "x.yaml", {parse_override("sweep.workload.fio.iodepth=[2, 4]")});
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].workload.fio.iodepth, 2);
  EXPECT_EQ(points[1].workload.fio.iodepth, 4);  // fastest now
  EXPECT_EQ(points[1].params["storage.kind"], "local");
  EXPECT_EQ(points[2].params["storage.kind"], "pool");
  points = load_scenarios_from_text(yaml, "x.yaml", {parse_override("sweep.workload.fio.iodepth=[2, 4]"), parse_override("sweep.storage.kind=[pool, local]")});
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].params["storage.kind"], "pool");
  EXPECT_EQ(points[1].params["storage.kind"], "local");
  EXPECT_EQ(points[1].workload.fio.iodepth, 2);
  EXPECT_EQ(points[2].workload.fio.iodepth, 4);
  // An error in the replacing axis names the --set, not the file's line.
  auto e = error_of(yaml, {parse_override("sweep.workload.fio.iodepth=[]")});
  EXPECT_CONTAINS(e, "--set sweep.workload.fio.iodepth=[]");
  EXPECT_CONTAINS(e, "at least one value");
}

// One document per file: a second one (after --- or ...) was ignored without a word.
TEST(ScenarioErrors, ASecondYamlDocumentIsRefused) {
  auto e = error_of("name: a\n---\nname: b\n");
  EXPECT_CONTAINS(e, "bad.yaml:3:1");
  EXPECT_CONTAINS(e, "a second YAML document");
  EXPECT_CONTAINS(error_of("name: a\n...\nname: [\n"), "YAML syntax error");
  EXPECT_NO_THROW(load_scenarios_from_text("---\nname: a\n...\n", "ok.yaml"));
}

TEST(ScenarioErrors, UnknownVariantOrVariantKey) {
  auto e = error_of("variants: {ssd: {}}\nsweep:\n  variant: [ssd, sdd2x]\n");
  EXPECT_CONTAINS(e, "bad.yaml:3:18");
  EXPECT_CONTAINS(e, "unknown variant 'sdd2x'");
  EXPECT_CONTAINS(e, "the scenario has: ssd");
  e = error_of("variants:\n  a: {database.chekcsum: none}\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:7");
  EXPECT_CONTAINS(e, "variants.a.database.chekcsum");
  EXPECT_CONTAINS(e, "did you mean 'checksum'");
  e = error_of("variants:\n  a: {database.checksum: sha1}\nvariant: a\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:26");
  EXPECT_CONTAINS(e, "database.checksum");
  EXPECT_CONTAINS(error_of("variant: a\n"), "has no `variants:`");
  // A variant a --set sweep names is that --set's error: the variant node came from the --set's own
  // text, and its mark was read as a place in the file (bad.yaml:1:2; found by fuzzing --set, session 44).
  e = error_of("variants: {ssd: {}}\n", {parse_override("sweep.variant=[ssd, sdd2x]")});
  EXPECT_CONTAINS(e, "--set sweep.variant=[ssd, sdd2x]: key 'variant': unknown variant 'sdd2x'");
  EXPECT_EQ(e.find("bad.yaml"), std::string::npos) << e;
}

TEST(ScenarioErrors, UnknownKeyNamesLineColumnAndSuggests) {
  auto e = error_of("name: x\ncompute:\n  cors: 4\n");
  EXPECT_CONTAINS(e, "bad.yaml:3:3");
  EXPECT_CONTAINS(e, "compute.cors");
  EXPECT_CONTAINS(e, "did you mean 'cores'");
}

TEST(ScenarioErrors, WrongType) {
  auto e = error_of("compute:\n  cores: many\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:10");
  EXPECT_CONTAINS(e, "compute.cores");
  EXPECT_CONTAINS(e, "expected an integer");
  EXPECT_CONTAINS(error_of("compute: [1, 2]\n"), "expected a mapping");
  // A quoted number is a string in YAML; it was read as the number.
  e = error_of("compute:\n  cores: \"4\"\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:10: key 'compute.cores'");
  EXPECT_CONTAINS(e, "is quoted, a string");
  EXPECT_CONTAINS(error_of("compute: {core_speed: '1.5'}\n"), "key 'compute.core_speed': '1.5' is quoted");
  EXPECT_NO_THROW(load_scenarios_from_text("compute: {cores: 4, core_speed: 1.5}\n", "ok.yaml"));
}

TEST(ScenarioErrors, BadUnitAndBareNumber) {
  auto e = error_of("compute:\n  memory: 24 parsecs\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:11");
  EXPECT_CONTAINS(e, "unknown unit");
  e = error_of("compute:\n  memory: 24\n");
  EXPECT_CONTAINS(e, "compute.memory");
  EXPECT_CONTAINS(e, "has no unit");
}

TEST(ScenarioErrors, OutOfRange) {
  auto e = error_of("compute:\n  count: 0\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:10");
  EXPECT_CONTAINS(e, "out of range");
  EXPECT_CONTAINS(error_of("workload: {fio: {bs: 1B}}"), "between 512B and 64MiB");
}

TEST(ScenarioErrors, ASizeThatCountsBytesIsAWholeNumberOfThem) {
  // 4096.5B was taken as a block size; sizes such as 1.5GiB or 1.1GB are whole bytes and stay.
  auto e = error_of("workload:\n  kind: fio\n  fio:\n    bs: 4096.5B\n");
  EXPECT_CONTAINS(e, "bad.yaml:4:9: key 'workload.fio.bs'");
  EXPECT_CONTAINS(e, "4096.5 bytes");
  EXPECT_CONTAINS(error_of("database: {buffer_pool: 1.3GiB}\n"), "1395864371.2 bytes");
  EXPECT_CONTAINS(error_of("{}", {{"compute.memory", "0.1B"}}), "whole number of bytes");
  EXPECT_NO_THROW(load_scenarios_from_text("compute: {memory: 1.5GiB}\ndatabase: {buffer_pool: 1.1GB}\nworkload: {kind: sysbench}\n", "ok.yaml"));
}

TEST(ScenarioErrors, BufferPoolLargerThanTheHostsMemory) {
  auto e = error_of("compute: {memory: 16GiB}\nworkload: {kind: sysbench}\ndatabase:\n  buffer_pool: 600GiB\n");
  EXPECT_CONTAINS(e, "bad.yaml:4:16");
  EXPECT_CONTAINS(e, "database.buffer_pool");
  EXPECT_CONTAINS(e, "does not fit in the compute node's memory");
  // A size past any host's (it used to overflow the pool's page count silently).
  EXPECT_CONTAINS(error_of("workload: {kind: sysbench}\ndatabase: {buffer_pool: 1e30GiB}\n"), "compute.memory = 24GiB");
}

TEST(ScenarioErrors, APageCacheBesideThePoolMustFitAndFollowUniformKeysWhenSmallerThanTheData) {
  // flush_method fsync: the OS page cache holds the data files in the memory the pool leaves.
  auto e = error_of("compute: {memory: 16GiB}\nworkload: {kind: sysbench}\ndatabase:\n  buffer_pool: 8GiB\n  flush_method: fsync\n  page_cache: 12GiB\n");
  EXPECT_CONTAINS(e, "bad.yaml:6:15");
  EXPECT_CONTAINS(e, "database.page_cache");
  EXPECT_CONTAINS(e, "does not fit beside the buffer pool");
  // A cache smaller than the data starts from uniform keys' steady state: other keys are refused.
  e = error_of("workload: {kind: sysbench, tables: 4, table_size: 1000000, rand_type: special}\n"
               "database: {buffer_pool: 64MiB, flush_method: fsync, page_cache: 128MiB}\n");
  EXPECT_CONTAINS(e, "database.page_cache");
  EXPECT_CONTAINS(e, "uniform keys only (rand_type is special)");
  // The same cache with uniform keys, or one that holds the whole data set with any keys, loads.
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, tables: 4, table_size: 1000000, rand_type: uniform}\n"
                                           "database: {buffer_pool: 64MiB, flush_method: fsync, page_cache: 128MiB}\n", "ok.yaml"));
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, tables: 4, table_size: 1000000, rand_type: special}\n"
                                           "database: {buffer_pool: 64MiB, flush_method: fsync}\n", "ok.yaml"));
  EXPECT_CONTAINS(error_of("database: {flush_method: O_DSYNC}\n"), "database.flush_method");
}

TEST(ScenarioErrors, ADataSetPastWhatThePoolTracksOrBatchesTooShortAreRefused) {
  // 100,000 x 4e9 rows: ~6e12 pages, which overflowed the 32-bit page numbers and exhausted memory.
  auto e = error_of("workload: {kind: sysbench, tables: 100000, table_size: 4000000000}\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:56");
  EXPECT_CONTAINS(e, "workload.table_size");
  EXPECT_CONTAINS(e, "poolsim tracks every page");
  // The seed-000 data set (64 x 12.5M rows, ~12M pages) is far inside.
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, tables: 64, table_size: 12500000}\n", "seed000.yaml"));
  // A 1 ns batch in a 1 s run: 1e9 batches, each re-estimating over all the others.
  e = error_of("simulation: {batch: 1ns, max_duration: 1s}\n");
  EXPECT_CONTAINS(e, "simulation.batch");
  EXPECT_CONTAINS(e, "1e+09 batches");
}

TEST(ScenarioErrors, UnknownEnumValueSuggests) {
  auto e = error_of("storage:\n  kind: pol\n");
  EXPECT_CONTAINS(e, "did you mean 'pool'");
}

TEST(ScenarioErrors, VolumeOnAStorageNodeThatDoesNotExist) {
  auto e = error_of("storage:\n  kind: pool\n  nodes:\n    - name: flash1\n  volume:\n    nodes: [flash1, flahs2]\n");
  EXPECT_CONTAINS(e, "bad.yaml:6:21");
  EXPECT_CONTAINS(e, "storage.volume.nodes[1]");
  EXPECT_CONTAINS(e, "does not exist");
  EXPECT_CONTAINS(e, "did you mean 'flash1'");
}

TEST(ScenarioErrors, PoolWithoutStorageNodes) {
  EXPECT_CONTAINS(error_of("storage: {kind: pool}\n"), "needs at least one storage node");
}

TEST(ScenarioErrors, VolumeUsesMoreDevicesThanTheNodeHas) {
  EXPECT_CONTAINS(error_of("storage: {kind: pool, nodes: [{name: a, devices: 2}], volume: {devices_per_node: 4}}\n"),
                  "node 'a' has 2");
}

TEST(ScenarioErrors, UnknownDeviceSuggestsACatalogueEntry) {
  auto e = error_of("storage:\n  device: pcie4-nvme-tcl\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:11");
  EXPECT_CONTAINS(e, "did you mean 'pcie4-nvme-tlc'");
}

TEST(ScenarioErrors, DuplicateStorageNodes) {
  EXPECT_CONTAINS(error_of("storage: {kind: pool, nodes: [{name: a}, {name: a}]}\n"), "duplicate storage node name 'a'");
}

TEST(ScenarioErrors, YamlSyntaxErrorHasALine) {
  auto e = error_of("compute:\n  cores: [1, 2\n");
  EXPECT_CONTAINS(e, "bad.yaml:3");
  EXPECT_CONTAINS(e, "YAML syntax error");
}

// A NUL inside a plain scalar loaded without a word as something else ("a<NUL>b" became "a\bb "),
// elsewhere as a bogus escape; YAML allows no control character but tab, line feed and return.
TEST(ScenarioErrors, AControlCharacterIsRefusedAtItsLine) {
  EXPECT_CONTAINS(error_of(std::string("name: a\0b\nworkload: {kind: fio}\n", 32)),
                  "bad.yaml:1:8: a control character (byte 0x00), which YAML does not allow in a file");
  EXPECT_CONTAINS(error_of("workload: {kind: fio}\nname: a\x1b[31mb\n"), "bad.yaml:2:8: a control character (byte 0x1B)");
  // Tabs and CRLF line ends stay text YAML allows.
  EXPECT_EQ(load_scenarios_from_text("name: a\tb\r\nworkload: {kind: fio}\r\n", "ok.yaml").front().name, "a\tb");
}

TEST(ScenarioErrors, DuplicateKeyIsRefusedWithBothLines) {
  // yaml-cpp keeps both entries and a lookup sees the first: the second value would be ignored.
  auto e = error_of("compute:\n  cores: 8\n  cores: 16\n");
  EXPECT_CONTAINS(e, "bad.yaml:3:3");
  EXPECT_CONTAINS(e, "compute.cores");
  EXPECT_CONTAINS(e, "duplicate key 'cores' (first at line 2)");
  e = error_of("storage:\n  kind: pool\n  nodes:\n    - {name: a, devices: 2, devices: 4}\n");
  EXPECT_CONTAINS(e, "storage.nodes[0].devices");
}

TEST(ScenarioErrors, DeviceEntryWithoutSource) {
  auto e = error_of("devices:\n  mine:\n    kind: nvme\n    capacity: 1TB\n");
  EXPECT_CONTAINS(e, "devices.mine");
  EXPECT_CONTAINS(e, "missing required key 'source'");
}

TEST(ScenarioErrors, SetNamesItselfAndSuggests) {
  try {
    parse_override("compute.cors=4");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "--set compute.cors=4");
    EXPECT_CONTAINS(std::string(e.what()), "did you mean 'cores'");
  }
  for (const char* text : {"compute.cores.=4", ".compute.cores=4", "compute..cores=4"}) {
    try {
      parse_override(text);
      ADD_FAILURE() << "no error for --set " << text;
    } catch (const InputError& e) {
      EXPECT_CONTAINS(std::string(e.what()), "empty step");
    }
  }
  // YAML drops a comment: "4 # four" would set 4 cores silently.
  for (const char* text : {"compute.cores=4 # four", "compute.cores=#4", "sweep.compute.cores=[1, 2]\t# two", "name=it's # 2",
                           "database={checksum: 'none'} # c"}) {
    try {
      parse_override(text);
      ADD_FAILURE() << "no error for --set " << text;
    } catch (const InputError& e) {
      EXPECT_CONTAINS(std::string(e.what()), "has a comment");
    }
  }
  // A '#' inside quotes or without a blank before it is part of the value.
  EXPECT_EQ(parse_override("name=\"run # 2\"").value, "\"run # 2\"");
  EXPECT_EQ(parse_override("name='it''s # 2'").value, "'it''s # 2'");
  EXPECT_EQ(parse_override("name=run#2").value, "run#2");
  auto e = error_of("{}", {parse_override("compute.cores=lots")});
  EXPECT_CONTAINS(e, "--set compute.cores=lots");
  EXPECT_CONTAINS(e, "expected an integer");
  EXPECT_CONTAINS(error_of("{}", {Override{"compute.cores", "[1,"}}), "cannot parse value");
  // A section the file gives as a scalar is an error, not replaced by the --set's mapping.
  e = error_of("simulation: se\n", {parse_override("simulation.max_duration=1s")});
  EXPECT_CONTAINS(e, "bad.yaml:1:13");
  EXPECT_CONTAINS(e, "expected a mapping (--set simulation.max_duration goes inside it)");
}

// A sweep's or a variant's key with an empty step ("", "compute.") passed the key check (the schema
// lookup took "" for the whole scenario) and failed later without a line: "bad.yaml: unknown key ''".
TEST(ScenarioErrors, ASweepOrVariantKeyWithAnEmptyStepIsNamedAtItsLine) {
  EXPECT_CONTAINS(error_of("workload: {kind: fio}\nsweep: {\"\": [1]}\n"), "bad.yaml:2:9: key 'sweep.': sweeps a key the scenario does not have");
  EXPECT_CONTAINS(error_of("workload: {kind: fio}\nsweep: {compute.: [1]}\n"), "bad.yaml:2:9: key 'sweep.compute.': sweeps a key the scenario does not have");
  EXPECT_CONTAINS(error_of("workload: {kind: fio}\nvariants: {a: {\"\": 1}}\nvariant: a\n"),
                  "bad.yaml:2:16: key 'variants.a.': a variant sets a key the scenario does not have");
}

TEST(ScenarioErrors, SweepOfAnUnknownKeyOrBadValue) {
  auto e = error_of("sweep:\n  workload.fio.iodepht: [1, 2]\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:3");
  EXPECT_CONTAINS(e, "did you mean 'iodepth'");
  e = error_of("sweep:\n  workload.fio.iodepth: [1, 0]\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:29");
  EXPECT_CONTAINS(e, "out of range");
}

TEST(Schema, JsonSchemaDescribesTheScenario) {
  auto doc = schema::to_json_schema(scenario_schema());
  EXPECT_EQ(doc["type"], "object");
  EXPECT_EQ(doc["additionalProperties"], false);
  EXPECT_EQ(doc["properties"]["storage"]["properties"]["kind"]["enum"][1], "pool");
  EXPECT_TRUE(doc["properties"]["compute"]["properties"]["memory"].contains("pattern"));
}

namespace {

// A scenario's `devices:` section with one inline NVMe entry `name` (lines 2-12 of the document).
std::string inline_nvme_device(const std::string& name) {
  return "devices:\n"
         "  " + name + ":\n"
         "    kind: nvme\n"
         "    source: test\n"
         "    capacity: 1TB\n"
         "    read_latency: 80us\n"
         "    read_iops: 100K/s\n"
         "    read_bandwidth: 1GB/s\n"
         "    write_bandwidth: 1GB/s\n"
         "    write_latency: 20us\n"
         "    write_iops: 50K/s\n"
         "    flush_latency: 30us\n";
}

}  // namespace

// A device defined twice (two catalogue files, or an inline entry with a catalogue name) is an
// error: the later one replaced the earlier unseen.
TEST(ScenarioErrors, ADeviceDefinedTwiceIsRefused) {
  auto e = error_of(inline_nvme_device("pcie4-nvme-tlc"));
  EXPECT_CONTAINS(e, "bad.yaml:3:5");  // the entry's first line
  EXPECT_CONTAINS(e, "already in the catalogue");
  // A catalogue file holds the entries without the `devices:` line and two spaces less indent.
  auto entry = [](const std::string& name) {
    std::string text = inline_nvme_device(name).substr(std::string("devices:\n").size()), out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += line.substr(2) + "\n";
    return out;
  };
  const std::string a = poolsim::testing::write_temp("catalogue_a.yaml", entry("mydev"));
  const std::string b = poolsim::testing::write_temp("catalogue_b.yaml", entry("other") + entry("mydev"));
  try {
    load_device_catalogue({a, b});
    ADD_FAILURE() << "no error for a device in two catalogue files";
  } catch (const InputError& err) {
    EXPECT_CONTAINS(std::string(err.what()), b + ":12:1");
    EXPECT_CONTAINS(std::string(err.what()), "already defined in " + a);
  }
}

TEST(ScenarioErrors, AnErrorInACatalogueFileSaysWhichScenarioLineNamedIt) {
  // The catalogue's own file:line was all the message said: not which scenario (or which of its
  // `catalogue:` entries) pulled the file in.
  const std::string good = poolsim::testing::write_temp("catalogue_good.yaml", "{}\n");
  const std::string bad = poolsim::testing::write_temp("catalogue_bad.yaml", "mydev:\n  kind: nvme\n  capacity: lots\n");
  auto e = error_of("name: x\ncatalogue:\n  - " + good + "\n  - " + bad + "\n");
  EXPECT_CONTAINS(e, bad + ":");
  EXPECT_CONTAINS(e, "(catalogue named at bad.yaml:4)");
  e = error_of("{}", {{"catalogue", "[" + bad + "]"}});
  EXPECT_CONTAINS(e, "(catalogue named at --set catalogue=[" + bad + "])");
}


TEST(Scenario, ProgramSuspensionNeedsReadPriority) {
  const std::string device = inline_nvme_device("slow") + "    program_suspend: 50us\n";
  auto s = load_scenarios_from_text(device + "storage: {device: slow}\n", "ok.yaml").front();
  EXPECT_DOUBLE_EQ(s.device("slow").program_suspend_s, 50e-6);
  EXPECT_LT(s.device("samsung-850-pro").program_suspend_s, 0);  // absent: programs are not suspended
  auto e = error_of(device + "    read_priority: false\n");
  EXPECT_CONTAINS(e, "bad.yaml:13:22");
  EXPECT_CONTAINS(e, "devices.slow.program_suspend");
  EXPECT_CONTAINS(e, "needs read_priority: true");
  EXPECT_CONTAINS(error_of(device + "    queue: shared\n"), "devices.slow.program_suspend");
}

// An inline device's figures past what any device does (a typo's extra zeros, a unit slip) are
// refused with the file, line, key and the range, not simulated.
TEST(ScenarioErrors, InlineDeviceFiguresPastAnyDeviceAreRefused) {
  const std::string device = inline_nvme_device("mine");
  const std::string uses = "storage: {device: mine}\n";
  EXPECT_NO_THROW(load_scenarios_from_text(device + uses, "ok.yaml"));
  auto with = [&](const std::string& key, const std::string& value) {
    std::string yaml = device;
    const auto at = yaml.find("    " + key + ":");
    if (at == std::string::npos) return yaml + "    " + key + ": " + value + "\n" + uses;
    return yaml.replace(at, yaml.find('\n', at) - at, "    " + key + ": " + value) + uses;
  };
  auto e = error_of(with("read_bandwidth", "1e30B/s"));
  EXPECT_CONTAINS(e, "bad.yaml:8:21");
  EXPECT_CONTAINS(e, "devices.mine.read_bandwidth");
  EXPECT_CONTAINS(e, "above 0B/s and at most 1000GB/s");
  EXPECT_CONTAINS(error_of(with("write_bandwidth", "2TB/s")), "devices.mine.write_bandwidth");
  EXPECT_CONTAINS(error_of(with("read_transfer_rate", "5TB/s")), "devices.mine.read_transfer_rate");
  EXPECT_CONTAINS(error_of(with("read_iops", "1e12/s")), "devices.mine.read_iops");
  EXPECT_CONTAINS(error_of(with("write_iops", "1e12/s")), "devices.mine.write_iops");
  EXPECT_CONTAINS(error_of(with("capacity", "1e30B")), "devices.mine.capacity");
  EXPECT_CONTAINS(error_of(with("raw_capacity", "1e30B")), "devices.mine.raw_capacity");
  EXPECT_CONTAINS(error_of(with("write_cache", "1e30B")), "devices.mine.write_cache");
  // Latencies and the flush were bounded already; zero and negative figures too.
  EXPECT_CONTAINS(error_of(with("read_latency", "1000000000s")), "devices.mine.read_latency");
  EXPECT_CONTAINS(error_of(with("read_iops", "0/s")), "devices.mine.read_iops");
  EXPECT_CONTAINS(error_of(with("read_bandwidth", "-1GB/s")), "devices.mine.read_bandwidth");
  // A range whose lower end is excluded says so ("between 0ns and 1s" read as if 0 were allowed).
  EXPECT_CONTAINS(error_of(with("read_latency", "0us")), "must be above 0ns and at most 1s");
}

TEST(Scenario, TheMainJobUsesSeedS000sFittedCoreSpeed) {
  // scenarios/default.yaml repeats the core speed fitted on S000's published rows; a refit of the
  // seed must reach the main job (and the plan built on it) too.
  const std::string dir = std::string(POOLSIM_SOURCE_DIR) + "/scenarios/";
  auto main_job = load_scenarios(dir + "default.yaml").front();
  auto seed = load_scenarios(dir + "seeds/greatsql-ib-pool.yaml").front();
  EXPECT_EQ(main_job.compute.core_speed, seed.compute.core_speed);
}

TEST(Scenario, AliasesThatRecurseOrExplodeAreErrorsNotCrashes) {
  // yaml-cpp resolves an alias into the node it names: one that contains itself would recurse
  // without end in every walk of the tree, and nested aliases can expand past any memory.
  EXPECT_CONTAINS(error_of("name: x\nx: &a [*a]\n"), "recursive anchor");
  EXPECT_CONTAINS(error_of("compute: &c {cores: 2, more: *c}\n"), "recursive anchor");
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char level = 'b'; level <= 'h'; ++level) {
    laughs += std::string(1, level) + ": &" + level + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", " : "") + "*" + static_cast<char>(level - 1);
    laughs += "]\n";
  }
  EXPECT_CONTAINS(error_of(laughs), "expands to more than");
  EXPECT_CONTAINS(error_of("name: x\n", {parse_override("workload.threads=&a [*a]")}), "recursive anchor");
}

TEST(Scenario, AnEmptyFileAndAnOctalLookingIntegerAreErrors) {
  // An empty file would run the schema's defaults (a fio job); "010" is 8 to yaml-cpp, 10 to a reader.
  EXPECT_CONTAINS(error_of(""), "the scenario is empty");
  EXPECT_CONTAINS(error_of("# only a comment\n"), "the scenario is empty");
  EXPECT_CONTAINS(error_of("workload: {kind: sysbench, threads: 010}\n"), "leading zero");
  EXPECT_CONTAINS(error_of("name: x\n", {parse_override("workload.threads=010")}), "leading zero");
  EXPECT_EQ(load_scenarios_from_text("workload: {kind: sysbench, threads: 10}\n", "ok.yaml").front().workload.threads, 10);
}

TEST(Scenario, ASweepTooLargeToHoldIsAnError) {
  // 50 x 50 x 50 = 125,000 points: each a scenario in memory and a child process.
  std::string list;
  for (int i = 1; i <= 50; ++i) list += (i > 1 ? ", " : "") + std::to_string(i);
  const std::string yaml = "workload: {kind: sysbench}\nsweep:\n  workload.threads: [" + list + "]\n  workload.tables: [" + list +
                           "]\n  simulation.seed: [" + list + "]\n";
  const std::string e = error_of(yaml);
  EXPECT_CONTAINS(e, "bad.yaml:3:");
  EXPECT_CONTAINS(e, "125000 points");
}

TEST(Scenario, FlushingSettingsInnodbRefusesTogetherAreErrors) {
  EXPECT_CONTAINS(error_of("database: {io_capacity: 5000, io_capacity_max: 100}\nworkload: {kind: sysbench}\n"), "above io_capacity_max 100");
  EXPECT_CONTAINS(error_of("database: {max_dirty_pages_pct: 10%, max_dirty_pages_pct_lwm: 50%}\nworkload: {kind: sysbench}\n"), "low-water mark is above");
  // io_capacity_max 0 is InnoDB's default, max(2000, 2 x io_capacity): never below io_capacity.
  EXPECT_NO_THROW(load_scenarios_from_text("database: {io_capacity: 5000}\nworkload: {kind: sysbench}\n", "ok.yaml"));
}

TEST(Scenario, AFioJobUnderAnotherGeneratorIsAnError) {
  EXPECT_CONTAINS(error_of("workload: {kind: sysbench, fio: {rw: randread}}\n"), "would not run");
}

TEST(ScenarioErrors, AFioSpanShorterThanOneBlockIsRefused) {
  // It ran as one block, silently.
  const std::string e = error_of("workload: {kind: fio, fio: {rw: randread, bs: 16KiB, span: 1B}}\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:");
  EXPECT_CONTAINS(e, "workload.fio.span");
  EXPECT_CONTAINS(e, "shorter than one block");
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: fio, fio: {rw: randread, bs: 16KiB, span: 16KiB}}\n", "ok.yaml"));
}

TEST(Scenario, RunsTheSimulatorCannotFinishAreRefusedUpFront) {
  // More client threads than the kernel lets a process map stacks for (the simulation would abort).
  auto e = error_of("workload: {kind: sysbench, threads: 100000}\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:");
  EXPECT_CONTAINS(e, "workload.threads");
  EXPECT_CONTAINS(e, "vm.max_map_count");
  // The same for a closed-loop fio job's IOs in flight (one actor each) and NDB's load generator
  // threads; an open-loop fio job (rate) has a worker pool instead.
  e = error_of("workload: {fio: {iodepth: 65536}}\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:27");
  EXPECT_CONTAINS(e, "workload.fio.iodepth");
  EXPECT_CONTAINS(e, "vm.max_map_count");
  e = error_of("workload: {fio: {numjobs: 4096, iodepth: 16}}\n");
  EXPECT_CONTAINS(e, "workload.fio.numjobs");
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {fio: {numjobs: 4096, iodepth: 16, rate: 1000/s}}\n", "ok.yaml"));
  // A timed warm-up past a simulated day, and batches that do not fit in max_duration.
  e = error_of("simulation: {warmup: 1000000h}\n");
  EXPECT_CONTAINS(e, "simulation.warmup");
  EXPECT_CONTAINS(e, "longer than a simulated day");
  e = error_of("simulation: {batch: 1h, max_duration: 1s}\n");
  EXPECT_CONTAINS(e, "simulation.batch");
  EXPECT_CONTAINS(e, "fewer than the 2 batches");
  // min_batches that do not fit are as many as fit: max_duration caps the measurement.
  auto capped = load_scenarios_from_text("simulation: {batch: 250ms, min_batches: 8, max_duration: 1s}\n", "ok.yaml");
  EXPECT_EQ(capped.front().simulation.min_batches, 4);
}

TEST(Scenario, AProfileWhoseStatementsCostNothingIsAnError) {
  YAML::Node profile = YAML::LoadFile(POOLSIM_SOURCE_DIR "/scenarios/profiles/mariadb-10.11.yaml");
  for (auto it = profile["cpu"]["statement"].begin(); it != profile["cpu"]["statement"].end(); ++it) it->second = "0us";
  profile["cpu"]["client_statement"] = "0us";
  YAML::Emitter out;
  out << profile;
  const std::string path = poolsim::testing::write_temp("zero-cpu-profile.yaml", std::string(out.c_str()) + "\n");
  auto e = error_of("workload: {kind: sysbench}\ndatabase: {profile: " + path + "}\n");
  EXPECT_CONTAINS(e, "zero-cpu-profile.yaml:");
  EXPECT_CONTAINS(e, "cpu.statement");
}

TEST(Scenario, AVariantThatIsNotAMappingOrAChoiceThatIsNotANameIsNamedSo) {
  auto e = error_of("variants: {a: ~}\nvariant: a\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:");
  EXPECT_CONTAINS(e, "variants.a");
  EXPECT_CONTAINS(e, "expected a mapping");
  e = error_of("variants: {a: {}}\nvariant: [a]\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:");
  EXPECT_CONTAINS(e, "expected the name of one entry");
}

TEST(ScenarioErrors, ATransactionWithNoStatementIsRefused) {
  // skip_trx and every count of the mix at 0: an event of no statement takes no time, and the closed
  // loop never moved the clock on (the run hung).
  const std::string none =
      "workload: {kind: sysbench, test: oltp_read_write, skip_trx: true, point_selects: 0, simple_ranges: 0, sum_ranges: 0,\n"
      "           order_ranges: 0, distinct_ranges: 0, index_updates: 0, non_index_updates: 0, delete_inserts: 0}\n";
  const std::string e = error_of(none);
  EXPECT_CONTAINS(e, "workload.test");
  EXPECT_CONTAINS(e, "no statement");
  EXPECT_CONTAINS(error_of("workload: {kind: sysbench, test: oltp_read_only, skip_trx: true, point_selects: 0, simple_ranges: 0,\n"
                           "           sum_ranges: 0, order_ranges: 0, distinct_ranges: 0}\n"),
                  "no statement");
  // BEGIN and COMMIT alone are statements: that mix loads (and runs: DatabaseErrors in test_database).
  EXPECT_NO_THROW(load_scenarios_from_text(
      "workload: {kind: sysbench, point_selects: 0, simple_ranges: 0, sum_ranges: 0, order_ranges: 0, distinct_ranges: 0,\n"
      "           index_updates: 0, non_index_updates: 0, delete_inserts: 0}\n",
      "ok.yaml"));
}

TEST(ScenarioErrors, HexadecimalAndOverflowingNumbersAreRefusedAtTheirKey) {
  // strtod reads "0x10" as 16, yaml-cpp's as<double>() does not: the error had no file or key.
  std::string e = error_of("compute: {core_speed: 0x10}\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:");
  EXPECT_CONTAINS(e, "compute.core_speed");
  EXPECT_CONTAINS(error_of("name: x\n", {parse_override("compute.core_speed=0x1p3")}), "compute.core_speed");
  // 1e308 is a number, 1e308 M/s is past a double once the unit's factor is applied.
  e = error_of("workload: {kind: sysbench, rate: 1e308M/s}\n");
  EXPECT_CONTAINS(e, "workload.rate");
  EXPECT_CONTAINS(e, "past what a number holds");
  EXPECT_CONTAINS(error_of("compute: {memory: 1e308TB}\n"), "compute.memory");
}

// Review (session 41): fio's direct IO transfers whole sectors; 513 B was simulated at 12,600 IOPS.
TEST(ScenarioErrors, AFioBlockThatIsNotWholeSectorsIsRefused) {
  const std::string e = error_of("workload: {kind: fio, fio: {rw: randread, bs: 513B}}\n");
  EXPECT_CONTAINS(e, "bad.yaml:1:");
  EXPECT_CONTAINS(e, "key 'workload.fio.bs': a block of 513B is not a whole number of 512-byte sectors");
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: fio, fio: {rw: randread, bs: 1536B}}\n", "ok.yaml"));
}

// Review (session 41): a --set inside a key that is refused named the file without a line.
TEST(ScenarioErrors, AnErrorAtAKeyAnOverrideMadeNamesTheOverride) {
  const std::string e = error_of("workload: {kind: sysbench}\n", {parse_override("workload.fio.iodepth=4")});
  EXPECT_CONTAINS(e, "--set workload.fio.iodepth=4: key 'workload.fio': a fio job under workload.kind sysbench would not run");
}
