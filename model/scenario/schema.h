// A declarative schema for poolsim's YAML files (scenarios, device catalogues, trace metadata).
// One description serves validation (with file:line:column errors and did-you-mean), default
// values, --set and sweep key checks, and the JSON Schema shipped for editors.
#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/units.h"

namespace poolsim::schema {

enum class Kind { Map, Dict, Seq, String, Enum, Int, Real, Bool, Quantity };

struct Spec;
using SpecPtr = std::shared_ptr<const Spec>;

struct Field {
  std::string name;
  SpecPtr spec;
};

struct Spec {
  Kind kind = Kind::String;
  std::string description;
  std::optional<std::string> default_value;  // YAML text; absent fields with a default are filled in
  bool required = false;
  // Map: known fields, and whether unknown keys are kept (trace metadata) or rejected (scenarios).
  std::vector<Field> fields;
  bool allow_unknown = false;
  // Seq and Dict: the element spec.
  SpecPtr item;
  // Enum choices; for Quantity the dimension; for Int, Real, Quantity an inclusive range.
  std::vector<std::string> choices;
  Dimension dimension = Dimension::Seconds;
  std::optional<double> min, max;
  bool min_exclusive = false;
  // Quantity/Enum: extra literal words accepted (for example "auto").
  std::vector<std::string> keywords;
  // Quantity in bytes that counts whole bytes (a block, a page, a memory), unlike a mean per event.
  bool whole_bytes = false;

  const Spec* field(const std::string& name) const;
};

// Builders, so that a schema reads like the file it describes.
SpecPtr map(std::vector<Field> fields, std::string description = "", bool allow_unknown = false);
SpecPtr dict(SpecPtr item, std::string description = "");
SpecPtr seq(SpecPtr item, std::string description = "");
SpecPtr string(std::string description = "");
SpecPtr one_of(std::vector<std::string> choices, std::string description = "");
SpecPtr integer(std::optional<double> min, std::optional<double> max, std::string description = "");
SpecPtr real(std::optional<double> min, std::optional<double> max, std::string description = "",
             bool min_exclusive = false);
SpecPtr boolean(std::string description = "");
SpecPtr quantity(Dimension dimension, std::optional<double> min, std::optional<double> max,
                 std::string description = "", bool min_exclusive = false);
SpecPtr with_default(SpecPtr spec, std::string default_yaml);
SpecPtr required(SpecPtr spec);
SpecPtr with_keywords(SpecPtr spec, std::vector<std::string> keywords);
SpecPtr whole_bytes(SpecPtr spec);

// Where each node of a document came from: the file, and which dotted paths were set on the
// command line (their marks point into the --set text, not the file).
struct Origin {
  std::string file;
  std::map<std::string, std::string> overridden;  // path -> "--set path=value"
  SourceLocation locate(const std::string& path, const YAML::Node& node) const;
};

// Throws InputError naming file, line, column and key on the first problem.
void validate(const YAML::Node& node, const Spec& spec, const Origin& origin, const std::string& path = "");

// Returns a copy with defaults filled in (call after validate).
YAML::Node with_defaults(const YAML::Node& node, const Spec& spec);

// Follows a dotted path ("workload.fio.iodepth"); nullptr if it names no field.
const Spec* find(const Spec& root, const std::string& path, std::string* suggestion = nullptr);

// "a, b, c": the words of a list, for messages.
std::string join(const std::vector<std::string>& words);

// Converters for validated scalars.
double to_quantity(const YAML::Node& node, Dimension dimension);
nlohmann::json scalar_to_json(const YAML::Node& node);

// JSON Schema (draft 2020-12) for editors.
nlohmann::json to_json_schema(const Spec& spec);

}  // namespace poolsim::schema
