#include "workload/custom_mix.h"

#include <algorithm>
#include <set>

#include "core/errors.h"

namespace poolsim {

using namespace schema;

std::int64_t MixOperation::statement_count() const {
  std::int64_t n = 0;
  for (const auto& s : statements) n += s.repeat;
  return n;
}

std::int64_t MixOperation::row_count() const {
  std::int64_t n = 0;
  for (const auto& s : statements) n += std::int64_t{s.repeat} * s.tables * s.rows;
  return n;
}

std::int64_t MixOperation::written_rows() const {
  std::int64_t n = 0;
  for (const auto& s : statements)
    if (s.write) n += std::int64_t{s.repeat} * s.tables * s.rows;
  return n;
}

std::int64_t MixOperation::rows_held() const {
  std::int64_t largest = 0;
  for (const auto& s : statements) largest = std::max(largest, std::int64_t{s.tables} * s.rows);
  return largest + written_rows();
}

CustomMix::CustomMix(std::vector<MixOperation> operations) : operations_(std::move(operations)) {
  for (const auto& o : operations_) {
    total_weight_ += o.weight;
    cumulative_.push_back(total_weight_);
  }
}

size_t CustomMix::pick(std::mt19937_64& rng) const {
  if (operations_.size() <= 1) return 0;
  double u = std::uniform_real_distribution<double>(0.0, total_weight_)(rng);
  size_t i = static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
  return std::min(i, operations_.size() - 1);
}

SpecPtr custom_mix_spec() {
  auto statement = map({
      {"tables", with_default(integer(1.0, 64.0, "Tables the statement touches; their row operations go out in one batch"), "1")},
      {"rows", with_default(integer(1.0, 100000.0, "Rows per table, by primary key"), "1")},
      {"kind", with_default(one_of({"read", "write"}, "read: committed read by key; write: update by key (two-phase commit across the replicas at the end of the operation)"), "read")},
      {"repeat", with_default(integer(1.0, 100000.0, "Statements of this shape in sequence, each one round trip to the cluster"), "1")},
  }, "A statement: `rows` rows in each of `tables` tables");
  auto operation = map({
      {"name", required(string("Operation type name (results are reported per name)"))},
      {"weight", with_default(real(0.0, 1e9, "Share of the load (weights are normalised over the mix)"), "1")},
      {"statements", required(seq(statement, "The statements of one business operation, in order"))},
  }, "A business operation type");
  return seq(operation, "Custom transaction mix (workload kind ndb): business operation types chosen by weight");
}

CustomMix parse_custom_mix(const YAML::Node& mix, const YAML::Node& raw, const Origin& origin, const std::string& path) {
  auto at = [&](const YAML::Node& preferred, const YAML::Node& fallback) {
    return preferred && preferred.IsDefined() && preferred.Mark().line >= 0 ? preferred : fallback;
  };
  if (!mix || !mix.IsSequence() || mix.size() == 0)
    throw InputError(origin.locate(path, raw), path, "the mix needs at least one operation type");
  std::vector<MixOperation> operations;
  std::set<std::string> names;
  double total = 0;
  for (size_t i = 0; i < mix.size(); ++i) {
    const auto& o = mix[i];
    const YAML::Node raw_o = raw && raw.IsSequence() && i < raw.size() ? raw[i] : YAML::Node();
    std::string here = path + "[" + std::to_string(i) + "]";
    MixOperation op;
    op.name = o["name"].Scalar();
    op.weight = o["weight"].as<double>();
    if (!names.insert(op.name).second)
      throw InputError(origin.locate(here + ".name", at(raw_o["name"], o["name"])), here + ".name",
                       "duplicate operation type name '" + op.name + "'");
    // Results name each type (the table's column NAME_ms beside the point's mean_ms and p95_ms).
    if (op.name.find_first_not_of(" \t") == std::string::npos)
      throw InputError(origin.locate(here + ".name", at(raw_o["name"], o["name"])), here + ".name",
                       "an operation type needs a name that is not blank (results are reported by name)");
    for (const char* figure : {"mean", "p95"})
      if (op.name == figure)
        throw InputError(origin.locate(here + ".name", at(raw_o["name"], o["name"])), here + ".name",
                         "an operation type named '" + op.name + "' would share the results table's column " + op.name +
                             "_ms with the point's own " + op.name + " latency: give it another name");
    if (!o["statements"] || o["statements"].size() == 0)
      throw InputError(origin.locate(here + ".statements", at(raw_o["statements"], raw_o)), here + ".statements",
                       "an operation type needs at least one statement");
    // A dash with nothing after it is a null statement, which the defaults would fill in unseen.
    if (const YAML::Node raw_statements = raw_o ? raw_o["statements"] : YAML::Node(); raw_statements && raw_statements.IsSequence())
      for (size_t j = 0; j < raw_statements.size(); ++j)
        if (raw_statements[j].IsNull())
          throw InputError(origin.locate(here + ".statements[" + std::to_string(j) + "]", at(raw_statements[j], raw_statements)),
                           here + ".statements[" + std::to_string(j) + "]",
                           "an empty statement (a dash with nothing after it): give its tables, rows and kind, or remove it");
    for (const auto& s : o["statements"]) {
      MixStatement st;
      st.tables = s["tables"].as<int>();
      st.rows = s["rows"].as<int>();
      st.write = s["kind"].Scalar() == "write";
      st.repeat = s["repeat"].as<int>();
      op.statements.push_back(st);
    }
    total += op.weight;
    operations.push_back(std::move(op));
  }
  if (total <= 0) throw InputError(origin.locate(path, raw), path, "the weights of the mix add up to 0");
  return CustomMix(std::move(operations));
}

}  // namespace poolsim
