#include "engine/btree.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace poolsim {

namespace {
// InnoDB record overheads (MySQL reference manual, "InnoDB Row Formats", COMPACT/DYNAMIC): a 5-byte
// record header, 6-byte DB_TRX_ID and 7-byte DB_ROLL_PTR in clustered records, and a page directory
// slot (2 bytes per 4-8 records, ~0.5 byte per record). A page keeps ~200 bytes of header/trailer.
constexpr double kRecordHeaderBytes = 5;
constexpr double kClusteredSystemColumnsBytes = 6 + 7;
constexpr double kDirectoryBytesPerRecord = 0.5;
constexpr double kPageOverheadBytes = 200;
constexpr double kChildPageNumberBytes = 4;
constexpr double kPrimaryFill = 15.0 / 16.0;  // sequential primary-key inserts leave 1/16 free (InnoDB)

void build_index(IndexGeometry& index, double page_bytes, double node_pointer_bytes, std::uint32_t first_page) {
  index.first_page = first_page;
  auto per_leaf = index.per_leaf_ = index.compute_entries_per_leaf();
  index.leaf_pages = static_cast<std::uint32_t>((index.entries + per_leaf - 1) / per_leaf);
  index.level_pages = {std::max<std::uint32_t>(1, index.leaf_pages)};
  index.fanout = std::max<std::uint32_t>(2, static_cast<std::uint32_t>((page_bytes - kPageOverheadBytes) * (15.0 / 16.0) / node_pointer_bytes));
  while (index.level_pages.back() > 1)
    index.level_pages.push_back((index.level_pages.back() + index.fanout - 1) / index.fanout);
}
// One table: its clustered index from `first_page`, then its secondary index k.
TableGeometry table_geometry(const TableShape& shape, std::uint32_t first_page) {
  TableGeometry t;
  t.primary.entries = shape.rows;
  t.primary.entry_bytes = shape.row_bytes;
  t.primary.fill = kPrimaryFill;
  build_index(t.primary, shape.page_bytes, shape.node_pointer_bytes, first_page);
  t.secondary_k.entries = shape.rows;
  t.secondary_k.entry_bytes = shape.secondary_entry_bytes;
  t.secondary_k.fill = shape.secondary_fill;
  build_index(t.secondary_k, shape.page_bytes, shape.node_pointer_bytes, first_page + t.primary.pages());
  return t;
}

}  // namespace

std::uint32_t IndexGeometry::compute_entries_per_leaf() const {
  double usable = (16384 - kPageOverheadBytes) * fill;
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(usable / entry_bytes));
}

std::uint32_t IndexGeometry::pages() const {
  std::uint32_t n = 0;
  for (auto p : level_pages) n += p;
  return n;
}

std::uint32_t IndexGeometry::leaf_of(std::uint64_t position) const {
  return first_page + static_cast<std::uint32_t>(std::min<std::uint64_t>(position / entries_per_leaf(), leaf_pages - 1));
}

int IndexGeometry::path_to(std::uint64_t position, std::uint32_t* out) const {
  // Pages are numbered level by level from the leaves; the parent of page j is page j / fanout of
  // the level above. A leaf number fits 32 bits, so the levels above divide in 32 bits.
  auto j = static_cast<std::uint32_t>(std::min<std::uint64_t>(position / entries_per_leaf(), leaf_pages - 1));
  std::uint32_t ids[kMaxHeight];
  std::uint32_t level_start = first_page;
  int levels = std::min(height(), kMaxHeight);
  for (int l = 0; l < levels; ++l) {
    ids[l] = level_start + std::min(j, level_pages[l] - 1);
    level_start += level_pages[l];
    j /= fanout;
  }
  for (int l = 0; l < levels; ++l) out[l] = ids[levels - 1 - l];
  return levels;
}

void IndexGeometry::path_to(std::uint64_t position, std::vector<std::uint32_t>& out) const {
  std::uint32_t ids[kMaxHeight];
  int n = path_to(position, ids);
  out.insert(out.end(), ids, ids + n);
}

TableShape sysbench_table_shape(std::uint64_t rows, double page_bytes) {
  TableShape s;
  s.rows = rows;
  s.page_bytes = page_bytes;
  // id INT (4) + k INT (4) + c CHAR(120) + pad CHAR(60), single-byte charset.
  s.row_bytes = 4 + 4 + 120 + 60 + kRecordHeaderBytes + kClusteredSystemColumnsBytes + kDirectoryBytesPerRecord;
  // Secondary record: k (4) + primary key id (4) + header.
  s.secondary_entry_bytes = 4 + 4 + kRecordHeaderBytes + kDirectoryBytesPerRecord;
  // B-tree leaves filled by random inserts settle near ln 2 = 69 % (Yao 1978); sysbench's prepare
  // inserts k in random order.
  s.secondary_fill = std::log(2.0);
  s.node_pointer_bytes = 4 + kChildPageNumberBytes + kRecordHeaderBytes + kDirectoryBytesPerRecord;
  return s;
}

std::uint64_t DataLayout::pages_for(int tables, const TableShape& shape) {
  // Every table has the same shape: one table's indexes, times the tables.
  const TableGeometry t = table_geometry(shape, 0);
  return static_cast<std::uint64_t>(tables) * (std::uint64_t{t.primary.pages()} + t.secondary_k.pages());
}

DataLayout::DataLayout(int tables, const TableShape& shape) : page_bytes_(shape.page_bytes) {
  if (pages_for(tables, shape) > kMaxPages)
    throw std::length_error("the data set has more pages than poolsim tracks (2^29)");
  tables_.resize(tables);
  std::uint32_t next = 0;
  for (auto& t : tables_) {
    t = table_geometry(shape, next);
    next += t.primary.pages() + t.secondary_k.pages();
  }
  total_pages_ = next;
}

int DataLayout::table_of(std::uint32_t page) const {
  auto after = std::upper_bound(tables_.begin(), tables_.end(), page,
                                [](std::uint32_t p, const TableGeometry& t) { return p < t.primary.first_page; });
  return static_cast<int>(after - tables_.begin()) - 1;
}

}  // namespace poolsim
