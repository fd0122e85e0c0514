// A bank of threads (an ndbmtd thread type, an API node's cores) booked analytically.
//
// FcfsServerBank (platform/server_bank.h) assumes bookings arrive in time order. The NDB model books
// a whole round trip when a statement is issued: the LDM stage of a message that is still on the
// wire is booked before the TC stage of a statement issued a microsecond later but arriving sooner.
// In arrival order that later statement would be served first; a FIFO in booking order would make
// it wait behind the future booking and leave the thread idle in between, so the bank's capacity
// would look smaller than it is. Each thread here is therefore a GapServer-like timeline (the
// FabricLink approach): a piece of work is served in the first idle gap at or after it is ready,
// which is what a thread that picks up whatever is in its queue does. Waiting costs no SimGrid
// activity; the caller sleeps once until the end of a chain of stages.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace poolsim {

class GapThread {
public:
  // The earliest start >= ready at which `service_s` fits between the intervals already booked.
  double probe(double ready_s, double service_s) const {
    double start = ready_s;
    auto it = busy_.upper_bound(start);
    if (it != busy_.begin()) start = std::max(start, std::prev(it)->second);
    while (it != busy_.end() && it->first < start + service_s) {
      start = std::max(start, it->second);
      ++it;
    }
    return start;
  }
  void insert(double start_s, double service_s) {
    if (service_s > 0) busy_.emplace(start_s, start_s + service_s);
  }
  // Booked work not yet served at `t`.
  double backlog_s(double t) const {
    double s = 0;
    for (auto it = busy_.begin(); it != busy_.end(); ++it) s += std::max(0.0, it->second - std::max(it->first, t));
    return s;
  }
  // Drops intervals that ended before `now_s` (they can no longer constrain anything).
  void forget_before(double now_s) {
    while (!busy_.empty() && busy_.begin()->second <= now_s) busy_.erase(busy_.begin());
  }

private:
  std::map<double, double> busy_;  // start -> end, non-overlapping
};

class ThreadBank {
public:
  ThreadBank(std::string name, int threads) : name_(std::move(name)), threads_(std::max(1, threads)) {}

  // Books `service_s` ready at `ready_s` on thread `thread` (a partition's LDM, a connection's
  // receive thread) or, with thread < 0, on the thread that finishes it first. Returns the end.
  double book(double now_s, double ready_s, double service_s, int thread = -1) {
    if (service_s <= 0) return ready_s;
    size_t chosen = pick(now_s, ready_s, service_s, thread);
    double start = threads_[chosen].probe(ready_s, service_s);
    threads_[chosen].insert(start, service_s);
    busy_[chosen] += service_s;
    busy_s_ += service_s;
    ++requests_;
    return start + service_s;
  }

  // A message for a thread that reads or writes in calls (a receive or send thread, an adapter
  // queue): one that finds the thread idle starts a call and costs `alone_s`; one that arrives while
  // the thread is busy waits and goes out or in with the next call, costing only `batched_s` (NDB
  // moves data between nodes "in chunks as large as possible"). Returns the end.
  double book_message(double now_s, double ready_s, double alone_s, double batched_s, int thread = -1) {
    if (alone_s <= 0 && batched_s <= 0) return ready_s;
    size_t chosen = pick(now_s, ready_s, alone_s, thread);
    auto& t = threads_[chosen];
    double start = t.probe(ready_s, alone_s);
    double service = alone_s;
    if (start > ready_s) {  // busy when the message came: it joins the next call
      double joined = t.probe(ready_s, batched_s);
      if (joined > ready_s) {
        start = joined;
        service = batched_s;
      }
    }
    t.insert(start, service);
    busy_[chosen] += service;
    busy_s_ += service;
    ++requests_;
    return start + service;
  }

  const std::string& name() const { return name_; }
  int threads() const { return static_cast<int>(threads_.size()); }
  double busy_s() const { return busy_s_; }
  // Work is booked whole when a statement is issued, often ahead of `now`: the shares below count
  // what was served by `now_s` (a long message counted at booking put them above 1).
  // The busiest thread's share of the window of `elapsed_s` ending at `now_s` (a pinned thread can
  // saturate while the bank idles).
  double max_thread_utilisation(double now_s, double elapsed_s) const {
    if (!(elapsed_s > 0)) return 0.0;
    double most = 0;
    for (size_t i = 0; i < threads_.size(); ++i) most = std::max(most, busy_[i] - threads_[i].backlog_s(now_s));
    return most / elapsed_s;
  }
  std::uint64_t requests() const { return requests_; }
  double utilisation(double now_s, double elapsed_s) const {
    if (!(elapsed_s > 0)) return 0.0;
    double backlog = 0;
    for (const auto& t : threads_) backlog += t.backlog_s(now_s);
    return (busy_s_ - backlog) / (threads_.size() * elapsed_s);
  }
  // A window opening at `now_s` counts the work booked before it and served in it.
  void reset_counters(double now_s) {
    busy_s_ = 0;
    requests_ = 0;
    for (size_t i = 0; i < threads_.size(); ++i) {
      busy_[i] = threads_[i].backlog_s(now_s);
      busy_s_ += busy_[i];
    }
  }

private:
  // The pinned thread, or the one that can start the work first.
  size_t pick(double now_s, double ready_s, double service_s, int thread) {
    if (thread >= 0) {
      size_t t = static_cast<size_t>(thread) % threads_.size();
      threads_[t].forget_before(now_s);
      return t;
    }
    double best = std::numeric_limits<double>::infinity();
    size_t chosen = 0;
    for (size_t i = 0; i < threads_.size(); ++i) {
      threads_[i].forget_before(now_s);
      double start = threads_[i].probe(ready_s, service_s);
      if (start < best) {
        best = start;
        chosen = i;
        if (start <= ready_s) break;  // cannot do better than starting when ready
      }
    }
    return chosen;
  }

  std::string name_;
  std::vector<GapThread> threads_;
  std::vector<double> busy_ = std::vector<double>(threads_.size(), 0.0);
  double busy_s_ = 0;
  std::uint64_t requests_ = 0;
};

}  // namespace poolsim
