// Input errors: everything a user can get wrong (YAML, traces, CLI) ends in an InputError that names
// where it happened. The CLI turns it into one line on stderr and exit code 2.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace poolsim {

struct SourceLocation {
  std::string file;  // file path, or a pseudo-source such as "--set"
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
public:
  InputError(SourceLocation where, std::string key, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& detail() const { return detail_; }

private:
  SourceLocation where_;
  std::string key_;
  std::string detail_;
};

// Levenshtein-based suggestion among candidates; empty when nothing is close enough.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace poolsim
