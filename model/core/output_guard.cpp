#include "core/output_guard.h"

#include <cstdio>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "core/utf8.h"

namespace poolsim {

void require_utf8_names(const std::vector<std::string>& paths, const std::string& what) {
  for (const auto& path : paths) {
    const auto bad = invalid_utf8_at(path);
    if (bad == std::string::npos) continue;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(path[bad]));
    throw InputError({what, 0, 0}, "",
                     "'" + path.substr(0, bad) + "...' has a name that is not UTF-8 (byte " + byte + " at byte " +
                         std::to_string(bad + 1) + "): rename it");
  }
}

void refuse_output_over_inputs(const std::string& out, const std::string& option, const std::vector<CommandInput>& inputs) {
  if (out.empty() || out == "-") return;
  std::error_code ec;
  // A directory (or a path ending in '/') names no file: found here, before the work, not when the
  // output is written (calibrate -o DIR/ fitted, then failed on a profile named "" in a temporary file).
  if (out.back() == '/' || std::filesystem::is_directory(out, ec))
    throw InputError({option, 0, 0}, "", "'" + out + "' is a directory: name the file to write");
  // Nor can a file be written into a directory that is not there (found after a whole fit before).
  const auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw InputError({option, 0, 0}, "", "'" + out + "': there is no directory '" + parent.string() + "' to write it in");
  const auto target = std::filesystem::canonical(out, ec);
  if (ec) return;  // not there yet: it cannot be an input
  for (const auto& input : inputs) {
    if (input.path.empty()) continue;  // an input not given
    bool same = std::filesystem::equivalent(target, input.path, ec) && !ec;
    if (input.directory)
      for (auto dir = target.parent_path(); !same && dir != dir.root_path(); dir = dir.parent_path())
        same = std::filesystem::equivalent(dir, input.path, ec) && !ec;
    if (same)
      throw InputError({option, 0, 0}, "",
                       "'" + out + "' is " + (input.directory ? "a file of " : "") + input.what + " '" + input.path +
                           "', an input of this command: writing it would replace it");
  }
}

void refuse_repeated_traces(const std::vector<std::string>& dirs, const std::string& key, const std::string& counted_in) {
  std::set<std::string> seen;
  for (const auto& d : dirs)
    if (!seen.insert(std::filesystem::weakly_canonical(d).string()).second)
      throw InputError({d, 0, 0}, key, "the trace is given twice: it would count twice in " + counted_in);
}

}  // namespace poolsim
