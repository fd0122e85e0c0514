// Custom transaction mixes written in YAML (issue 3): business operation types, each with a weight
// (its share of the load) and a list of statements, each touching `rows` rows in each of `tables`
// tables, reading or writing. The NDB model (model/ndb/) runs them; a load generator thread picks an
// operation type by weight for each business operation (closed loop).
//
//   workload:
//     kind: ndb
//     mix:
//       - name: balance-read
//         weight: 1
//         statements:
//           - {tables: 2, rows: 3, kind: read, repeat: 10}
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scenario/schema.h"

namespace poolsim {

struct MixStatement {
  int tables = 1;   // tables the statement touches (one batch for all of them)
  int rows = 1;     // rows per table
  bool write = false;
  int repeat = 1;   // statements of this shape in sequence (each one round trip)
};

struct MixOperation {
  std::string name;
  double weight = 1;  // share of the load (normalised over the mix)
  std::vector<MixStatement> statements;

  // Statements in sequence (with repeats), rows touched, rows written; 64-bit: the schema's limits
  // (100000 repeats x 64 tables x 100000 rows per statement) overflow an int.
  std::int64_t statement_count() const;
  std::int64_t row_count() const;
  std::int64_t written_rows() const;
  // The most rows a thread running it holds at once: its largest statement's, and those it writes
  // before the commit.
  std::int64_t rows_held() const;
  bool writes() const { return written_rows() > 0; }
};

class CustomMix {
public:
  CustomMix() = default;
  explicit CustomMix(std::vector<MixOperation> operations);
  const std::vector<MixOperation>& operations() const { return operations_; }
  // The index of an operation type drawn by weight.
  size_t pick(std::mt19937_64& rng) const;
  // Each type's share of the load (weights normalised to 1).
  double share(size_t i) const { return operations_[i].weight / total_weight_; }

private:
  std::vector<MixOperation> operations_;
  std::vector<double> cumulative_;
  double total_weight_ = 0;
};

// The schema of `workload.mix` (a list of operation types).
schema::SpecPtr custom_mix_spec();

// Builds the mix from the validated `workload.mix` with defaults (`mix`), checking what the schema
// cannot say (at least one operation type, names unique, a positive total weight). `raw` is the same
// node as written in the file, for the line and column of errors.
CustomMix parse_custom_mix(const YAML::Node& mix, const YAML::Node& raw, const schema::Origin& origin,
                           const std::string& path = "workload.mix");

}  // namespace poolsim
