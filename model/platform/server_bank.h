// A bank of FCFS servers whose completion times are computed when a request arrives.
//
// A non-preemptive FCFS server's completion time depends only on earlier arrivals, so it can be
// computed at arrival: the waiting request needs no SimGrid activity of its own, only one timer until
// its completion. This is how poolsim keeps thousands of queued IOs cheap (the guide: "keep waiting
// requests in your own queues").
#pragma once
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <iterator>
#include <cstddef>
#include <vector>

namespace poolsim {

class FcfsServerBank {
public:
  // How a request picks its server: by address (an SSD die or a stripe member: a request goes where
  // its data is, so collisions queue even when other servers idle) or the first free server (one
  // shared queue, as an M/M/c queue or a pool of CPU cores).
  // Cores is SharedQueue for banks whose servers are never named (idle_at by address): a node's
  // CPU cores, booked on every CPU burst.
  enum class Dispatch { ByAddress, SharedQueue, Cores };

  FcfsServerBank(int servers, Dispatch dispatch) : free_at_s_(std::max(1, servers), 0.0), dispatch_(dispatch) {}
  // Cores keeps free_at_s_ as a min-heap (all zeros is one): a request takes the earliest free
  // server in O(log servers) instead of a scan (128 cores); which of several equally free servers it
  // takes changes no time, so the times are SharedQueue's.

  struct Slot {
    int server;
    double start_s;
    double end_s;
  };

  // Books `service_s` of work arriving at `arrival_s` (at or after `now_s`, the simulated time of
  // the booking); `address` picks the server for ByAddress.
  Slot book(double now_s, double arrival_s, double service_s, std::uint64_t address = 0) {
    busy_s_ += service_s;
    ++requests_;
    if (dispatch_ == Dispatch::Cores) {
      const double free_s = free_at_s_.front();
      double start = std::max(arrival_s, free_s);
      double end = start + service_s;
      std::pop_heap(free_at_s_.begin(), free_at_s_.end(), std::greater<double>());
      free_at_s_.back() = end;
      std::push_heap(free_at_s_.begin(), free_at_s_.end(), std::greater<double>());
      note_idle_gap(now_s, free_s, start, kUnnamedServer);
      return {0, start, end};
    }
    int server = 0;
    if (dispatch_ == Dispatch::ByAddress) {
      server = static_cast<int>(address % free_at_s_.size());
    } else {
      server = static_cast<int>(std::min_element(free_at_s_.begin(), free_at_s_.end()) - free_at_s_.begin());
    }
    return book_at(server, now_s, arrival_s, service_s);
  }

  // Books on server `server` (not for Cores, whose servers are not named).
  Slot book_on(int server, double now_s, double arrival_s, double service_s) {
    assert(dispatch_ != Dispatch::Cores && "Cores keeps its servers as a heap: they have no names");
    busy_s_ += service_s;
    ++requests_;
    return book_at(server, now_s, arrival_s, service_s);
  }

  int servers() const { return static_cast<int>(free_at_s_.size()); }
  // Whether some server is idle at `t` (work arriving then starts at once).
  bool idle_at(double t) const {
    return (dispatch_ == Dispatch::Cores ? free_at_s_.front() : *std::min_element(free_at_s_.begin(), free_at_s_.end())) <= t;
  }
  // Whether the server `address` maps to (ByAddress) is idle at `t`.
  bool idle_at(double t, std::uint64_t address) const { return free_at(address) <= t; }
  // When the server `address` maps to (ByAddress) has served everything booked on it so far.
  double free_at(std::uint64_t address) const { return free_at_s_[address % free_at_s_.size()]; }
  double busy_s() const { return busy_s_; }
  // Busy time per server since the last reset, counted at booking (empty for Cores, whose servers
  // are not named); less server_backlog_s at a window's end, the work served in the window.
  const std::vector<double>& server_busy_s() const { return server_busy_s_; }
  // backlog_s for one named server.
  double server_backlog_s(int server, double t) const {
    double s = std::max(0.0, free_at_s_[static_cast<size_t>(server)] - t);
    for (const auto& g : gaps_ahead_)
      if (g.server == server) s -= std::max(0.0, g.end_s - std::max(g.start_s, t));
    return s;
  }
  std::uint64_t requests() const { return requests_; }
  void reset_counters() {
    busy_s_ = 0;
    requests_ = 0;
    std::fill(server_busy_s_.begin(), server_busy_s_.end(), 0.0);
  }
  // The same at `now_s`, keeping as busy time the work booked before it and served after it: a
  // window's busy time is then the work served in it once backlog_s at its end is taken off.
  void reset_counters(double now_s) {
    reset_counters();
    busy_s_ = backlog_s(now_s);
    for (size_t i = 0; i < server_busy_s_.size(); ++i) server_busy_s_[i] = server_backlog_s(static_cast<int>(i), now_s);
  }
  // Booked work not yet served at `t` (server-seconds): what a busy time counted at booking holds
  // beyond `t`, for `t` at or after the latest booking's `now_s`. A server's time from `t` to its
  // free_at less the idle gaps booked ahead within it (counting those as work made a window's
  // utilisation negative when bursts were booked far ahead).
  double backlog_s(double t) const {
    double s = 0;
    for (double f : free_at_s_) s += std::max(0.0, f - t);
    for (const auto& g : gaps_ahead_) s -= std::max(0.0, g.end_s - std::max(g.start_s, t));
    return s;
  }

private:
  Slot book_at(int server, double now_s, double arrival_s, double service_s) {
    const double free_s = free_at_s_[static_cast<size_t>(server)];
    double start = std::max(arrival_s, free_s);
    double end = start + service_s;
    free_at_s_[static_cast<size_t>(server)] = end;
    add_server_busy(server, service_s);
    note_idle_gap(now_s, free_s, start, server);
    return {server, start, end};
  }
  // A booking that starts after its server frees leaves it idle from `free_s` to `start_s`. Only a
  // gap that ends after `now_s` can fall in a later window, so only those are kept (a min-heap by end,
  // pruned as time passes): bookings at `now` on an idle server, the usual case, keep nothing.
  void note_idle_gap(double now_s, double free_s, double start_s, int server) {
    while (!gaps_ahead_.empty() && gaps_ahead_.front().end_s <= now_s) {
      std::pop_heap(gaps_ahead_.begin(), gaps_ahead_.end(), EndsLater{});
      gaps_ahead_.pop_back();
    }
    if (start_s > free_s && start_s > now_s) {
      gaps_ahead_.push_back({free_s, start_s, server});
      std::push_heap(gaps_ahead_.begin(), gaps_ahead_.end(), EndsLater{});
    }
  }
  static constexpr int kUnnamedServer = -1;  // Cores: its servers have no names
  struct Gap {
    double start_s, end_s;
    int server;
  };
  struct EndsLater {
    bool operator()(const Gap& a, const Gap& b) const { return a.end_s > b.end_s; }
  };

  std::vector<double> free_at_s_;
  std::vector<Gap> gaps_ahead_;  // idle gaps between bookings that end after the latest `now_s`
  void add_server_busy(int server, double service_s) {
    if (server_busy_s_.empty()) server_busy_s_.assign(free_at_s_.size(), 0.0);
    server_busy_s_[static_cast<size_t>(server)] += service_s;
  }

  Dispatch dispatch_;
  std::vector<double> server_busy_s_;
  double busy_s_ = 0;
  std::uint64_t requests_ = 0;
};

// One server that serves each request in the earliest idle gap at or after its ready time. Used for
// short stages behind a parallel one (an SSD's host interface after its dies): requests reach it in
// the order their dies finish, not the order they arrived, so a plain FIFO booking in arrival order
// would make an early-finishing read wait behind a later one.
class GapServer {
public:
  // Books `service_s` at the first gap >= ready_s; `now_s` lets it forget intervals already past.
  double book(double now_s, double ready_s, double service_s) {
    forget_past(now_s);
    double start = ready_s;
    // The first interval starting after `start` (bookings cluster near the end: search from there).
    size_t i = busy_.size();
    while (i > first_ && busy_[i - 1].start_s > start) --i;
    if (i > first_) start = std::max(start, busy_[i - 1].end_s);
    while (i < busy_.size() && busy_[i].start_s < start + service_s) {
      start = std::max(start, busy_[i].end_s);
      ++i;
    }
    // Recorded as busy time, joined to the intervals it touches (back-to-back bookings leave no gap
    // to book, and fewer intervals keep the search short); an empty booking occupies nothing.
    const double end = start + service_s;
    if (service_s > 0) {
      const bool joins_previous = i > first_ && busy_[i - 1].end_s == start;
      const bool joins_next = i < busy_.size() && busy_[i].start_s == end;
      if (joins_previous && joins_next) {
        busy_[i - 1].end_s = busy_[i].end_s;
        busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (joins_previous) {
        busy_[i - 1].end_s = end;
      } else if (joins_next) {
        busy_[i].start_s = start;
      } else {
        busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), Interval{start, end});
      }
    }
    busy_s_ += service_s;
    return end;
  }
  // Work-conserving booking: `service_s` of work ready at `ready_s` takes the idle time from then on,
  // several short gaps if need be, and the server never idles while booked work is ready. Returns
  // when the last of it is served. For a short one-at-a-time section whose users book it ahead of
  // the time they reach it (a merged CPU burst's statements): first-gap booking would leave the gaps
  // shorter than a section unused and so lower the section's capacity.
  double book_work_conserving(double now_s, double ready_s, double service_s) {
    forget_past(now_s);
    double t = ready_s, left = service_s;
    size_t i = busy_.size();
    while (i > first_ && busy_[i - 1].end_s > t) --i;  // busy_[i] is the first interval ending after t
    while (left > 0) {
      if (i < busy_.size() && busy_[i].start_s <= t) {
        t = std::max(t, busy_[i].end_s);
        ++i;
        continue;
      }
      if (i == busy_.size() || busy_[i].start_s - t >= left) {  // the rest fits: done
        if (i > first_ && busy_[i - 1].end_s == t) {
          busy_[i - 1].end_s = t + left;
        } else {
          busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), Interval{t, t + left});
        }
        t += left;
        break;
      }
      // A gap too short for the rest: fill it (the intervals on its two sides join, or the next one
      // starts at t) and go on after the next interval.
      left -= busy_[i].start_s - t;
      if (i > first_ && busy_[i - 1].end_s == t) {
        busy_[i - 1].end_s = busy_[i].end_s;
        busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i));
        t = busy_[i - 1].end_s;
      } else {
        busy_[i].start_s = t;
        t = busy_[i].end_s;
        ++i;
      }
    }
    busy_s_ += service_s;
    return t;
  }
  double busy_s() const { return busy_s_; }
  // Booked work not yet served at `t`: what busy_s, counted at booking, holds beyond `t`.
  double backlog_s(double t) const {
    double s = 0;
    for (size_t i = first_; i < busy_.size(); ++i) s += std::max(0.0, busy_[i].end_s - std::max(busy_[i].start_s, t));
    return s;
  }
  // A window opening at `now_s` counts the work booked before it and served in it.
  void reset_counters(double now_s) { busy_s_ = backlog_s(now_s); }

private:
  void forget_past(double now_s) {
    // Intervals are sorted and disjoint, so those already past are a prefix.
    while (first_ < busy_.size() && busy_[first_].end_s <= now_s) ++first_;
    if (first_ == busy_.size()) {
      busy_.clear();
      first_ = 0;
    } else if (first_ > 64 && first_ * 2 > busy_.size()) {
      busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(first_));
      first_ = 0;
    }
  }
  struct Interval {
    double start_s, end_s;
  };
  std::vector<Interval> busy_;  // busy_[first_..] are the intervals not yet past, by start, disjoint
  size_t first_ = 0;
  double busy_s_ = 0;
};

}  // namespace poolsim
