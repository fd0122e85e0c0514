// Reading an input file (scenario, plan, profile, catalogue, table, a trace's files) whole, within a bound.
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.h"

namespace poolsim {

// 16 MiB: over 1,000 times the largest committed input (a seed scenario, 11 KiB; a trace's files are
// under 100 KiB each). A YAML tree takes tens of times its text in memory, so a file past this (or an
// endless device such as /dev/zero, which read whole until std::bad_alloc) is a mistake, refused
// before it exhausts memory.
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{16} << 20;

// The text of `path`; InputError at `referenced_from` (naming `key`) when it is a directory, cannot be
// read or holds more than kMaxInputFileBytes. A FIFO or device (`<(...)`, /dev/stdin) is read up to
// the bound, so process substitution still works.
inline std::string read_input_text(const std::string& path, const SourceLocation& referenced_from, const std::string& key) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  // A directory opens as an empty stream on Linux: it would read as an empty file.
  if (!ec && std::filesystem::is_directory(status)) throw InputError(referenced_from, key, "'" + path + "' is a directory, not a file");
  const std::string too_big = "'" + path + "' is larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                              " MiB: not an input poolsim reads (a scenario, plan, profile, catalogue, table or trace file is kilobytes)";
  if (!ec && std::filesystem::is_regular_file(status) && std::filesystem::file_size(path, ec) > kMaxInputFileBytes && !ec)
    throw InputError(referenced_from, key, too_big);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(referenced_from, key, "cannot read file '" + path + "'");
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputFileBytes) throw InputError(referenced_from, key, too_big);
  }
  if (in.bad()) throw InputError(referenced_from, key, "cannot read file '" + path + "'");
  return text;
}

}  // namespace poolsim
