// InnoDB table geometry: a clustered B-tree on the primary key plus secondary indexes, laid out as
// 16 KiB pages, and the pages a statement touches. Page ids are global across the data set.
#pragma once
#include <cstdint>
#include <vector>

namespace poolsim {

// innodb_page_size: its default, 16 KiB, the only size poolsim models (the scenario schema allows no other).
inline constexpr std::uint32_t kInnodbPageBytes = 16384;

struct IndexGeometry {
  std::uint64_t entries = 0;
  double entry_bytes = 0;     // record size including InnoDB's per-record overhead
  double fill = 15.0 / 16.0;  // leaf fill factor
  std::uint32_t leaf_pages = 0;
  std::vector<std::uint32_t> level_pages;  // level 0 = leaves, last = root (1 page)
  std::uint32_t first_page = 0;            // global id of the first page of this index
  std::uint32_t fanout = 2;                // children per internal page
  std::uint32_t pages() const;
  int height() const { return static_cast<int>(level_pages.size()); }
  std::uint32_t entries_per_leaf() const { return per_leaf_ ? per_leaf_ : compute_entries_per_leaf(); }
  std::uint32_t compute_entries_per_leaf() const;
  std::uint32_t per_leaf_ = 0;  // entries_per_leaf, fixed once the index is built (it is on the hot path)
  // Pages from root to the leaf holding entry `position` (0-based), appended to `out`.
  void path_to(std::uint64_t position, std::vector<std::uint32_t>& out) const;
  // The same into `out` (at least kMaxHeight entries, no allocation); returns the number of pages.
  static constexpr int kMaxHeight = 16;
  int path_to(std::uint64_t position, std::uint32_t* out) const;
  // Leaves beyond the first that `rows` consecutive entries from `position` span (range scans).
  std::uint32_t extra_leaves(std::uint64_t position, std::uint32_t rows) const {
    std::uint32_t per_leaf = entries_per_leaf();
    return rows > 1 ? static_cast<std::uint32_t>((position % per_leaf + rows - 1) / per_leaf) : 0;
  }
  // The leaf holding `position`.
  std::uint32_t leaf_of(std::uint64_t position) const;
};

struct TableGeometry {
  IndexGeometry primary;
  IndexGeometry secondary_k;  // sysbench's index k_N on (k)
};

struct TableShape {
  std::uint64_t rows = 0;
  double row_bytes = 0;            // clustered record: columns + InnoDB overhead
  double secondary_entry_bytes = 0;
  double secondary_fill = 0;       // secondary leaves fill less: k is inserted in random order
  double page_bytes = kInnodbPageBytes;
  double node_pointer_bytes = 0;   // internal record: key + child page number + header
};

// The sysbench table sbtest: id INT, k INT, c CHAR(120), pad CHAR(60), PRIMARY KEY(id), KEY(k).
TableShape sysbench_table_shape(std::uint64_t rows, double page_bytes);

class DataLayout {
public:
  // The buffer pool keeps a 16-byte slot for every page of the data set (engine/buffer_pool.h), and
  // pages are numbered in 32 bits: at most 2^29 pages (8 TiB of 16 KiB pages, 8 GiB of slots; the
  // pool's LRU entries keep the top two bits for their marks).
  static constexpr std::uint64_t kMaxPages = std::uint64_t{1} << 29;
  // The pages `tables` tables of `shape` take, counted in 64 bits (the constructor refuses more than
  // kMaxPages).
  static std::uint64_t pages_for(int tables, const TableShape& shape);
  DataLayout(int tables, const TableShape& shape);
  const TableGeometry& table(int t) const { return tables_[t]; }
  int tables() const { return static_cast<int>(tables_.size()); }
  // The table (tablespace) a page belongs to: tables are laid out one after the other.
  int table_of(std::uint32_t page) const;
  std::uint32_t total_pages() const { return total_pages_; }
  double page_bytes() const { return page_bytes_; }

private:
  std::vector<TableGeometry> tables_;
  std::uint32_t total_pages_ = 0;
  double page_bytes_;
};

}  // namespace poolsim
