#include "engine/warmup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "sim/phase_timer.h"

namespace poolsim {

void statement_pages(const DataLayout& layout, const Statement& s, std::vector<std::uint32_t>& out,
                     std::vector<std::uint8_t>* modified) {
  if (s.kind == StatementKind::Begin || s.kind == StatementKind::Commit) return;
  const auto& table = layout.table(static_cast<int>(s.table));
  // A write changes the leaf of each index it goes down (execute's touch_index_path with modify).
  auto mark_path = [&](std::size_t from) {
    if (!modified) return;
    modified->resize(out.size(), 0);
    if (is_write(s.kind) && out.size() > from) modified->back() = 1;
  };
  std::size_t from = out.size();
  table.primary.path_to(s.id, out);
  mark_path(from);
  std::uint32_t last_leaf = table.primary.first_page + table.primary.leaf_pages - 1;
  for (std::uint32_t l = table.primary.extra_leaves(s.id, s.rows); l > 0 && out.back() < last_leaf; --l)
    out.push_back(out.back() + 1);
  if (modified) modified->resize(out.size(), 0);
  if (s.kind == StatementKind::IndexUpdate || s.kind == StatementKind::Delete || s.kind == StatementKind::Insert) {
    from = out.size();
    table.secondary_k.path_to(s.k, out);
    mark_path(from);
  }
}

void event_pages(const DataLayout& layout, const std::vector<Statement>& statements, std::vector<std::uint32_t>& out) {
  for (const auto& s : statements) statement_pages(layout, s, out);
}

std::uint64_t replay_accesses(BufferPool& pool, const DataLayout& layout, const SysbenchMix& mix, std::mt19937_64& rng,
                              double* t, std::uint64_t max_misses, std::uint64_t max_touches, std::uint64_t* misses) {
  std::vector<Statement> statements;
  std::vector<std::uint32_t> path;
  std::uint64_t misses_seen = 0, touches = 0, events_without_pages = 0;
  // A mix whose events touch no page (BEGIN and COMMIT alone) has nothing to warm up; every sysbench
  // event of a mix touches pages or none does, so a run of page-less events from the start ends it.
  constexpr std::uint64_t kEventsToFindAPage = 1000;
  while (touches < max_touches) {
    mix.next(rng, statements);
    event_pages(layout, statements, path);
    if (path.empty() && touches == 0 && ++events_without_pages >= kEventsToFindAPage) break;
    // The event's pages, in order; their slots are fetched from memory together first (the loop
    // is bound by cache misses on the pool's per-page slots).
    for (auto page : path) pool.prefetch(page);
    for (auto page : path) {
      ++touches;
      *t += 1e-3;
      if (!pool.resident(page)) ++misses_seen;
      pool.preload(page, *t);
    }
    path.clear();
    if (pool.resident_pages() >= pool.frames() && misses_seen >= max_misses) break;
    // A data set that fits never fills the pool: stop once all of it is resident (nothing is left
    // to change but the LRU order, which without evictions changes no hit).
    if (pool.resident_pages() >= layout.total_pages()) break;
  }
  if (misses) *misses = misses_seen;
  return touches;
}

// The steady state of the replay, built directly.
//
// The replay is InnoDB's midpoint LRU under independent references (uniform keys: every page of a
// B-tree level of an index is touched at the same rate; the rates per level come from sampling the
// workload's events). That LRU is two segments: a miss enters the old sublist's head; a touch of an
// old page moves it to the young head (old_blocks_time is 1 ms of replay time, nothing against the
// millions of touches a page spends in a sublist); the young sublist overflows into the old head; the
// old tail is evicted; a young page moves to the head only when touched after drifting a quarter of
// the young sublist's length in evictions (buf_page_peek_if_too_old). In the TTL approximation of
// such segmented LRUs (Gast & Van Houdt, "TTL approximations of the cache replacement algorithms
// LRU(m) and h-LRU", Performance Evaluation 2017; exact as the cache grows, and the pool has millions
// of frames) a page stays in the old sublist for T1 unless touched, in the young sublist until T2
// passes since it last moved to the head, and the two times are set by the sublists' lengths. For a
// page touched at rate L per transaction, with w = (a quarter of the young length) / (misses per
// transaction), the time between moves to the young head is w + Exp(L), and:
//   q = 1 - exp(-L T1)            (an old page is touched before it leaves the old sublist)
//   x = L T2                      if w >= T2 (no move in the young sublist: a data set that fits)
//     = (L w + 1 - e^-d) e^d      with d = L (T2 - w), otherwise (L x the mean young stay)
//   P(old) = q / (1 + q x),  P(young) = q x / (1 + q x),  P(absent) = (1 - q) / (1 + q x)
// T1 and T2 solve sum P(old) = old length and sum P(young) = young length (the pool full, or the data
// set when it fits: then T1 is infinite), with the misses per transaction (sum L P(absent)) as a
// fixed point. Each page is drawn independently in its state; its position is its age in the
// sublist, drawn from the stationary age density (young: flat to w, then decaying as exp(-L a); old:
// decaying as exp(-L a) up to T1); the young pages' clocks are the evictions since they moved to the
// head (misses per transaction x age). A data set that fits has no evictions: young pages never
// move again, and P(old) = 1 / (1 + L T2) is the fraction of time a page spends untouched after
// drifting out of the young sublist.
namespace {

struct PageClass {
  double pages = 0;
  double touches = 0;  // in the sample
  double rate = 0;     // touches per transaction per page
  double p_old = 0, p_young = 0;
};

struct Probabilities {
  double old_p, young_p, absent_p;
};

Probabilities state_probabilities(double rate, double t1, double t2, double w) {
  double q = std::isinf(t1) ? 1.0 : -std::expm1(-rate * t1);
  double x;
  if (w >= t2) {
    x = rate * t2;
  } else {
    double d = std::min(rate * (t2 - w), 700.0);
    x = (rate * w - std::expm1(-d)) * std::exp(d);
  }
  double qx = q * x;
  if (!std::isfinite(qx) || qx > 1e300) return {0.0, 1.0, 0.0};
  return {q / (1 + qx), qx / (1 + qx), (1 - q) / (1 + qx)};
}

// Bisection in log space for an increasing function f on [lo, hi] reaching `target`.
template <typename F>
double solve_increasing(F f, double target, double lo, double hi) {
  for (int i = 0; i < 200; ++i) {
    double mid = std::sqrt(lo * hi);
    if (f(mid) < target) lo = mid; else hi = mid;
    if (hi / lo < 1 + 1e-12) break;
  }
  return std::sqrt(lo * hi);
}

}  // namespace

bool preload_steady_state(BufferPool& pool, const DataLayout& layout, const SysbenchMix& mix, std::mt19937_64& rng,
                          SteadyStateSummary* summary) {
  if (mix.options().rand_type != "uniform" || pool.resident_pages() != 0) return false;
  // Classes: (index kind, level); every table has the same geometry and the same share of events.
  constexpr int kLevels = IndexGeometry::kMaxHeight;
  std::vector<PageClass> classes(2 * kLevels);
  auto class_of = [&](std::uint32_t page) {
    const auto& table = layout.table(layout.table_of(page));
    bool secondary = page >= table.secondary_k.first_page;
    const auto& index = secondary ? table.secondary_k : table.primary;
    std::uint32_t start = index.first_page;
    int level = 0;
    while (level + 1 < index.height() && page >= start + index.level_pages[level]) start += index.level_pages[level++];
    return (secondary ? kLevels : 0) + level;
  };
  for (int t = 0; t < layout.tables(); ++t)
    for (int kind = 0; kind < 2; ++kind) {
      const auto& index = kind == 0 ? layout.table(t).primary : layout.table(t).secondary_k;
      for (int l = 0; l < index.height(); ++l) classes[kind * kLevels + l].pages += index.level_pages[l];
    }
  // Touch rates: a sample of events (its own random stream, so the replay's is not disturbed).
  std::mt19937_64 sample_rng(rng());
  constexpr int kSampleEvents = 20000;
  std::vector<Statement> statements;
  std::vector<std::uint32_t> path;
  double touches = 0;
  for (int e = 0; e < kSampleEvents; ++e) {
    mix.next(sample_rng, statements);
    path.clear();
    event_pages(layout, statements, path);
    touches += static_cast<double>(path.size());
    // A page touched again within the event (a DELETE and the INSERT of the same id, a range's
    // first leaf) is within old_blocks_time of the first touch: it neither moves the page nor can
    // miss. The LRU's dynamics see the distinct pages of an event.
    std::sort(path.begin(), path.end());
    path.erase(std::unique(path.begin(), path.end()), path.end());
    for (auto page : path) classes[class_of(page)].touches += 1;
  }
  for (auto& c : classes)
    if (c.pages > 0) c.rate = c.touches / kSampleEvents / c.pages;

  const double frames = pool.frames(), total = layout.total_pages(), old_ratio = pool.old_ratio();
  const bool fits = total <= frames;
  const double resident = fits ? total : frames;
  const double old_len = resident * old_ratio, young_len = resident - old_len;
  auto sum = [&](double t1, double t2, double w, auto pick) {
    double s = 0;
    for (const auto& c : classes)
      if (c.pages > 0) s += c.pages * pick(state_probabilities(c.rate, t1, t2, w), c.rate);
    return s;
  };
  const double inf = std::numeric_limits<double>::infinity();
  double t1 = inf, t2 = 0, misses = 0, w = inf;
  if (fits) {
    t2 = solve_increasing([&](double t) { return sum(inf, t, inf, [](Probabilities p, double) { return p.young_p; }); },
                          young_len, 1e-9, 1e18);
  } else {
    misses = touches / kSampleEvents * (1 - frames / total);  // a first guess, then the fixed point
    for (int iter = 0; iter < 100; ++iter) {
      w = young_len / 4 / misses;
      auto t1_for = [&](double t2v) {
        return solve_increasing(
            [&](double t) { return sum(t, t2v, w, [](Probabilities p, double) { return p.old_p + p.young_p; }); }, resident,
            1e-9, 1e18);
      };
      t2 = solve_increasing([&](double t) { return sum(t1_for(t), t, w, [](Probabilities p, double) { return p.young_p; }); },
                            young_len, 1e-9, 1e18);
      t1 = t1_for(t2);
      double next = sum(t1, t2, w, [](Probabilities p, double rate) { return rate * p.absent_p; });
      bool done = std::abs(next - misses) <= 1e-9 * misses;
      misses = next;
      if (done) break;
    }
    w = young_len / 4 / misses;
  }
  for (auto& c : classes) {
    auto p = state_probabilities(c.rate, t1, t2, w);
    c.p_old = p.old_p;
    c.p_young = p.young_p;
  }

  phase_mark("preload-solve");
  // Each page drawn in its state with its age; ordered by age within each sublist (counting sort
  // into buckets of a small fraction of the sublist's time span).
  struct Aged {
    std::uint32_t page;
    float age;
  };
  std::vector<Aged> young, old;
  young.reserve(static_cast<size_t>(young_len * 1.01) + 1024);
  old.reserve(static_cast<size_t>(old_len * 1.01) + 1024);
  // One uniform per page: below P(young) it is young, and u / P(young) is uniform again for its
  // age; likewise for old. splitmix64 (a page draws one number; the generator's quality is not at
  // stake at this scale).
  std::uint64_t draw_state = rng();
  auto next_u64 = [&] {
    std::uint64_t z = (draw_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto U = [&] { return (next_u64() >> 11) * (1.0 / 9007199254740992.0); };
  double max_old_age = 0;
  for (int t = 0; t < layout.tables(); ++t)
    for (int kind = 0; kind < 2; ++kind) {
      const auto& index = kind == 0 ? layout.table(t).primary : layout.table(t).secondary_k;
      std::uint32_t page = index.first_page;
      for (int l = 0; l < index.height(); ++l) {
        const PageClass& c = classes[kind * kLevels + l];
        const double rate = c.rate, p_young = c.p_young, p_old = c.p_old;
        // Young ages: flat on [0, min(w, T2)], then exp(-rate a) to T2.
        const double flat = std::min(w, t2), tail_mass = w >= t2 ? 0.0 : -std::expm1(-rate * (t2 - w)) / rate;
        const double old_mass = std::isinf(t1) ? 1.0 : -std::expm1(-rate * t1);
        for (std::uint32_t j = 0; j < index.level_pages[l]; ++j, ++page) {
          double u = U();
          if (u < p_young) {
            double v = u / p_young * (flat + tail_mass), age;
            if (v < flat || rate <= 0) age = std::min(v, t2);
            else age = w - std::log1p(-(v - flat) * rate) / rate;
            young.push_back({page, static_cast<float>(age)});
          } else if (u < p_young + p_old) {
            double v = (u - p_young) / p_old;
            double age = rate > 0 ? -std::log1p(-v * old_mass) / rate : 0.0;
            max_old_age = std::max(max_old_age, age);
            old.push_back({page, static_cast<float>(age)});
          }
        }
      }
    }
  // Ages quantised to 22 bits of the sublist's span, sorted by two stable radix passes of 11 bits
  // (pages of equal key keep page order: a span / 4M apart at most).
  auto order = [](std::vector<Aged>& v, double span) {
    if (v.size() < 2 || !(span > 0) || !std::isfinite(span)) return;
    constexpr std::uint32_t kBits = 11, kBuckets = 1u << kBits, kMaxKey = (1u << (2 * kBits)) - 1;
    const double scale = kMaxKey / span;
    auto key = [&](const Aged& a) { return static_cast<std::uint32_t>(std::min<double>(kMaxKey, a.age * scale)); };
    std::vector<Aged> tmp(v.size());
    for (std::uint32_t shift = 0; shift < 2 * kBits; shift += kBits) {
      std::vector<std::uint32_t> start(kBuckets + 1, 0);
      for (const auto& a : v) ++start[((key(a) >> shift) & (kBuckets - 1)) + 1];
      for (std::uint32_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
      for (const auto& a : v) tmp[start[(key(a) >> shift) & (kBuckets - 1)]++] = a;
      v.swap(tmp);
    }
  };
  phase_mark("preload-draws");
  order(young, t2);
  order(old, std::isinf(t1) ? max_old_age : t1);
  // Exactly the resident count: the independent draws miss it by about its square root. Surplus
  // leaves from the old tail (the next evicted); a shortfall is made up by absent pages there.
  size_t want = static_cast<size_t>(resident);
  while (young.size() + old.size() > want) {
    if (!old.empty()) old.pop_back(); else young.pop_back();
  }
  if (young.size() + old.size() < want) {
    std::vector<bool> in(layout.total_pages(), false);
    for (const auto& a : young) in[a.page] = true;
    for (const auto& a : old) in[a.page] = true;
    while (young.size() + old.size() < want) {
      auto page = static_cast<std::uint32_t>(next_u64() % layout.total_pages());
      if (in[page]) continue;
      in[page] = true;
      old.push_back({page, static_cast<float>(t1)});
    }
  }
  // Clocks: a young page moved to the head `age` transactions ago, misses x age evictions ago.
  const std::uint32_t clock = 1u << 30;
  phase_mark("preload-sort");
  std::vector<std::uint32_t> pages, young_clocks;
  pages.reserve(young.size() + old.size());
  young_clocks.reserve(young.size());
  for (const auto& a : young) {
    pages.push_back(a.page);
    young_clocks.push_back(clock - static_cast<std::uint32_t>(std::min(misses * a.age, 1e9)));
  }
  for (const auto& a : old) pages.push_back(a.page);
  std::uint32_t young_count = static_cast<std::uint32_t>(young.size());
  young = {};
  old = {};
  pool.load_ordered(pages, young_count, young_clocks, clock, -1e6);
  if (summary) {
    summary->touches_per_txn = touches / kSampleEvents;
    summary->predicted_misses_per_txn = misses;
    summary->old_age_txn = t1;
    summary->young_age_txn = t2;
    summary->loaded = static_cast<std::uint32_t>(pages.size());
  }
  return true;
}

std::uint64_t functional_warmup(BufferPool& pool, const DataLayout& layout, const SysbenchMix& mix, std::mt19937_64& rng,
                                bool direct) {
  // Replay time starts long before the simulation, so old_blocks_time never blocks.
  double t = -1e6;
  const std::uint64_t after_fill = 200000;  // misses replayed once the pool is full
  SteadyStateSummary summary;
  std::uint64_t touches = 0;
  phase_mark("pool-allocated");
  if (direct && preload_steady_state(pool, layout, mix, rng, &summary)) {
    phase_mark("preload-load");
    // A short replay from that state: the replay's own mechanism settles what the draws leave
    // approximate (the order at the sublists' ends). A data set that fits has nothing to evict and
    // is left as built.
    std::uint64_t misses = 0;
    if (layout.total_pages() > pool.frames()) touches = replay_accesses(pool, layout, mix, rng, &t, after_fill, ~0ull, &misses);
    if (std::getenv("POOLSIM_WARMUP_TRACE"))
      std::fprintf(stderr, "warmup: steady-state preload of %u pages (T1 %.0f, T2 %.0f txn; predicted %.3f misses/txn of %.1f touches), "
                   "then %llu touches, hit ratio %.4f (predicted %.4f)\n",
                   summary.loaded, summary.old_age_txn, summary.young_age_txn, summary.predicted_misses_per_txn,
                   summary.touches_per_txn, static_cast<unsigned long long>(touches),
                   touches ? 1.0 - static_cast<double>(misses) / static_cast<double>(touches) : 1.0,
                   1.0 - summary.predicted_misses_per_txn / summary.touches_per_txn);
  } else {
    // The touch cap scales with what can become resident: a pool far larger than the data would
    // otherwise set it (a 600 GiB pool over a 3 MiB table replayed billions of touches for pages the
    // mix never reaches).
    const std::uint64_t budget = std::min<std::uint64_t>(pool.frames(), layout.total_pages()) + after_fill;
    touches = replay_accesses(pool, layout, mix, rng, &t, budget, 64ull * budget);
  }
  pool.counters = BufferPool::Counters{};
  return touches;
}

}  // namespace poolsim
