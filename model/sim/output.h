// Result documents: {"points": [...]} as JSON, or flattened into a table or CSV.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace poolsim {

enum class OutputFormat { Table, Json, Csv };

std::string render(const std::vector<nlohmann::ordered_json>& points, OutputFormat format);

// Writes `text` to `path` atomically (a temporary file renamed into place; through a symbolic link,
// the file it names; a device or FIFO directly), or to stdout if empty. Throws on any failed write.
void write_output(const std::string& path, const std::string& text);
// Several files that belong together (a profile and its devices): each is written beside its
// target first, and none replaces its target unless all were written.
void write_outputs(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace poolsim
