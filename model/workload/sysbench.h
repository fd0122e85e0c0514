// sysbench's OLTP workloads: the statement mix of each test (1.0.20's Lua scripts and 0.5's
// oltp.lua), and key distributions drawn as sysbench draws them.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace poolsim {

enum class StatementKind : std::uint8_t {
  Begin, Commit, PointSelect, SimpleRange, SumRange, OrderRange, DistinctRange,
  IndexUpdate, NonIndexUpdate, Delete, Insert
};
constexpr int kStatementKinds = 11;
const char* statement_name(StatementKind kind);
bool is_write(StatementKind kind);

struct Statement {
  StatementKind kind;
  std::uint32_t table;
  std::uint64_t id;      // 0-based row position in the primary key
  std::uint64_t k;       // 0-based position in the secondary index (index update, delete, insert)
  std::uint32_t rows;    // rows read (ranges)
};

struct SysbenchOptions {
  std::string test = "oltp_read_write";  // oltp_read_write | oltp_read_only | oltp_write_only |
                                         // oltp_point_select | oltp_update_index |
                                         // oltp_update_non_index | oltp_insert | oltp (0.5)
  std::string version = "1.0.20";
  int tables = 1;
  std::uint64_t table_size = 10000;
  int range_size = 100;
  int point_selects = 10, simple_ranges = 1, sum_ranges = 1, order_ranges = 1, distinct_ranges = 1;
  int index_updates = 1, non_index_updates = 1, delete_inserts = 1;
  bool skip_trx = false;
  std::string rand_type = "special";  // uniform | special (1.0.20 default) | gaussian | pareto | zipfian (master)
  double rand_spec_pct = 1, rand_spec_res = 75;  // special
  int rand_iter = 12;                             // gaussian and special (--rand-spec-iter)
  double rand_pareto_h = 0.2;                     // pareto
  double rand_zipfian_exp = 0.8;                  // zipfian
};

// Draws keys in [1, n] the way sysbench's sb_rand_default does for the chosen --rand-type.
class KeyDistribution {
public:
  KeyDistribution(const SysbenchOptions& options, std::uint64_t n);
  std::uint64_t draw(std::mt19937_64& rng) const;  // 1..n

private:
  // The distribution, resolved once from its name (draw is on the hot path).
  enum class Type { Uniform, Gaussian, Special, Pareto, Zipfian };
  Type type_;
  bool version_05_;  // sysbench 0.5's integer "special"
  std::uint64_t n_;
  SysbenchOptions o_;
  double zipf_hi_ = 0, zipf_h_x1_ = 0, zipf_s_ = 0;  // rejection-inversion constants
};

class SysbenchMix {
public:
  explicit SysbenchMix(const SysbenchOptions& options);
  // One event (transaction) of the test.
  // writes_only: the write statements alone, their keys drawn as in a whole transaction but without
  // the other statements' draws (a replay that needs only the pages writes modify; another stream).
  void next(std::mt19937_64& rng, std::vector<Statement>& out, bool writes_only = false) const;
  // Statements per event as sysbench counts them: reads, writes, other (BEGIN/COMMIT).
  int reads() const { return reads_; }
  int writes() const { return writes_; }
  int others() const { return others_; }
  const SysbenchOptions& options() const { return o_; }

private:
  SysbenchOptions o_;
  KeyDistribution keys_;
  int reads_ = 0, writes_ = 0, others_ = 0;
  // The test's shape, resolved once from its name (next() runs once per transaction).
  enum class Single { None, PointSelect, UpdateIndex, UpdateNonIndex, Insert };
  Single single_ = Single::None;  // a one-statement test
  bool trx_ = false, read_groups_ = false, write_groups_ = false, table_per_group_ = true;
};

}  // namespace poolsim
