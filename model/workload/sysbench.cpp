#include "workload/sysbench.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace poolsim {

const char* statement_name(StatementKind kind) {
  static const char* names[] = {"begin", "commit", "point_select", "simple_range", "sum_range", "order_range",
                                "distinct_range", "index_update", "non_index_update", "delete", "insert"};
  return names[static_cast<int>(kind)];
}

bool is_write(StatementKind kind) {
  return kind == StatementKind::IndexUpdate || kind == StatementKind::NonIndexUpdate || kind == StatementKind::Delete ||
         kind == StatementKind::Insert;
}

KeyDistribution::KeyDistribution(const SysbenchOptions& options, std::uint64_t n)
    : type_(Type::Uniform), version_05_(options.version == "0.5"), n_(n), o_(options) {
  const std::string& t = options.rand_type;
  type_ = t == "gaussian" ? Type::Gaussian
          : t == "special" ? Type::Special
          : t == "pareto"  ? Type::Pareto
          : t == "zipfian" ? Type::Zipfian
          : t == "uniform" ? Type::Uniform
                           : throw std::invalid_argument("unknown rand_type " + t);
  if (type_ == Type::Zipfian) {
    // Rejection-inversion sampling (Hormann & Derflinger 1996) of P(k) ~ k^-s on 1..n.
    zipf_s_ = o_.rand_zipfian_exp;
    auto h = [s = zipf_s_](double x) { return std::abs(s - 1) < 1e-9 ? std::log(x) : (std::pow(x, 1 - s) - 1) / (1 - s); };
    zipf_h_x1_ = h(1.5) - 1.0;
    zipf_hi_ = h(static_cast<double>(n_) + 0.5);
  }
}

// The formulas of sysbench 1.0.20's src/sb_rand.c (and branch 0.5's for "special" with version
// 0.5); zipfian exists only on sysbench's master branch (exponent 0.8, rejection-inversion).
std::uint64_t KeyDistribution::draw(std::mt19937_64& rng) const {
  auto U = [&] { return (rng() >> 12) * (1.0 / 4503599627370496.0); };  // (x >> 12) / 2^52, as sysbench
  const double a = 1, b = static_cast<double>(n_);
  auto clamp_key = [&](double v) { return static_cast<std::uint64_t>(std::clamp(std::floor(v), a, b)); };
  if (type_ == Type::Uniform) return clamp_key(a + U() * (b - a + 1));
  if (type_ == Type::Gaussian) {
    double sum = 0;
    for (int i = 0; i < o_.rand_iter; ++i) sum += U() * (b - a + 1);
    return clamp_key(a + sum / o_.rand_iter);
  }
  if (type_ == Type::Special) {
    if (version_05_) {
      // 0.5: integer arithmetic on t = b - a + 1; 75 % of draws uniform over the pct band in the middle.
      auto t = static_cast<std::uint64_t>(b - a + 1);
      std::uint64_t spread = t * static_cast<std::uint64_t>(100 / (100 - o_.rand_spec_res));
      std::uint64_t res = rng() % spread;
      if (res < t) {
        std::uint64_t sum = 0;
        for (int i = 0; i < o_.rand_iter; ++i) sum += rng() % t;
        return clamp_key(a + static_cast<double>(sum / o_.rand_iter));
      }
      std::uint64_t d = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(t * o_.rand_spec_pct / 100));
      return clamp_key(a + static_cast<double>(res % d) + static_cast<double>(t / 2) - static_cast<double>(t * o_.rand_spec_pct / 200));
    }
    double t = b - a;
    double rnd = U();
    if (rnd < (100.0 - o_.rand_spec_res) / 100.0) {
      double sum = 0;
      for (int i = 0; i < o_.rand_iter; ++i) sum += U();
      return clamp_key(a + t * sum / o_.rand_iter);
    }
    double d = t * o_.rand_spec_pct / 100.0;
    return clamp_key(a + rnd * (d + 1) + t / 2 - t * o_.rand_spec_pct / 200.0);
  }
  if (type_ == Type::Pareto) {
    double power = std::log(o_.rand_pareto_h) / std::log(1.0 - o_.rand_pareto_h);
    return clamp_key(a + (b - a + 1) * std::pow(U(), power));
  }
  if (type_ == Type::Zipfian) {
    double s = zipf_s_;
    auto h = [s](double x) { return std::abs(s - 1) < 1e-9 ? std::log(x) : (std::pow(x, 1 - s) - 1) / (1 - s); };
    auto h_inv = [s](double x) { return std::abs(s - 1) < 1e-9 ? std::exp(x) : std::pow(1 + x * (1 - s), 1 / (1 - s)); };
    while (true) {
      double u = zipf_hi_ + U() * (zipf_h_x1_ - zipf_hi_);
      double x = h_inv(u);
      auto k = static_cast<std::uint64_t>(std::clamp(std::floor(x + 0.5), 1.0, static_cast<double>(n_)));
      if (k - x <= 0 || u >= h(k + 0.5) - std::pow(static_cast<double>(k), -s)) return k;
    }
  }
  throw std::logic_error("KeyDistribution: unhandled type");
}

SysbenchMix::SysbenchMix(const SysbenchOptions& options) : o_(options), keys_(options, options.table_size) {
  const auto& t = o_.test;
  bool trx = !o_.skip_trx && (t == "oltp_read_write" || t == "oltp_read_only" || t == "oltp_write_only" || t == "oltp");
  bool reads = t == "oltp_read_write" || t == "oltp_read_only" || t == "oltp";
  bool writes = t == "oltp_read_write" || t == "oltp_write_only" || t == "oltp";
  others_ = trx ? 2 : 0;
  if (reads) reads_ = o_.point_selects + o_.simple_ranges + o_.sum_ranges + o_.order_ranges + o_.distinct_ranges;
  if (writes) writes_ = o_.index_updates + o_.non_index_updates + 2 * o_.delete_inserts;
  if (t == "oltp_point_select") reads_ = 1;
  if (t == "oltp_update_index" || t == "oltp_update_non_index" || t == "oltp_insert") writes_ = 1;
  single_ = t == "oltp_point_select"       ? Single::PointSelect
            : t == "oltp_update_index"     ? Single::UpdateIndex
            : t == "oltp_update_non_index" ? Single::UpdateNonIndex
            : t == "oltp_insert"           ? Single::Insert
                                           : Single::None;
  trx_ = trx;
  read_groups_ = t != "oltp_write_only";
  write_groups_ = t != "oltp_read_only";
  table_per_group_ = o_.version != "0.5";
}

void SysbenchMix::next(std::mt19937_64& rng, std::vector<Statement>& out, bool writes_only) const {
  out.clear();
  const std::uint64_t n = o_.table_size;
  // 1.0.20 draws the table once per statement group (execute_point_selects, each range kind, ...);
  // 0.5 once per transaction.
  std::uint32_t group_table = static_cast<std::uint32_t>(rng() % o_.tables);
  auto new_group = [&] { if (table_per_group_) group_table = static_cast<std::uint32_t>(rng() % o_.tables); };
  auto table = [&] { return group_table; };
  auto id = [&] { return keys_.draw(rng) - 1; };
  auto any_k = [&] { return rng() % n; };  // k was filled uniformly at prepare time
  auto add = [&](StatementKind kind, std::uint32_t rows = 1) {
    Statement s{kind, table(), id(), any_k(), rows};
    if (s.kind == StatementKind::SimpleRange || s.kind == StatementKind::SumRange || s.kind == StatementKind::OrderRange ||
        s.kind == StatementKind::DistinctRange)
      s.id = std::min<std::uint64_t>(s.id, n > rows ? n - rows : 0);
    out.push_back(s);
  };
  switch (single_) {
    case Single::PointSelect: if (!writes_only) add(StatementKind::PointSelect); return;
    case Single::UpdateIndex: return add(StatementKind::IndexUpdate);
    case Single::UpdateNonIndex: return add(StatementKind::NonIndexUpdate);
    case Single::Insert: return add(StatementKind::Insert);
    case Single::None: break;
  }
  if (trx_ && !writes_only) add(StatementKind::Begin);
  if (read_groups_ && !writes_only) {
    new_group();
    for (int i = 0; i < o_.point_selects; ++i) add(StatementKind::PointSelect);
    new_group();
    for (int i = 0; i < o_.simple_ranges; ++i) add(StatementKind::SimpleRange, o_.range_size);
    new_group();
    for (int i = 0; i < o_.sum_ranges; ++i) add(StatementKind::SumRange, o_.range_size);
    new_group();
    for (int i = 0; i < o_.order_ranges; ++i) add(StatementKind::OrderRange, o_.range_size);
    new_group();
    for (int i = 0; i < o_.distinct_ranges; ++i) add(StatementKind::DistinctRange, o_.range_size);
  }
  if (write_groups_) {
    new_group();
    for (int i = 0; i < o_.index_updates; ++i) add(StatementKind::IndexUpdate);
    new_group();
    for (int i = 0; i < o_.non_index_updates; ++i) add(StatementKind::NonIndexUpdate);
    new_group();
    for (int i = 0; i < o_.delete_inserts; ++i) {
      add(StatementKind::Delete);
      Statement insert = out.back();  // the same id, re-inserted with a new k
      insert.kind = StatementKind::Insert;
      insert.k = any_k();
      out.push_back(insert);
    }
  }
  if (trx_ && !writes_only) add(StatementKind::Commit);
}

}  // namespace poolsim
