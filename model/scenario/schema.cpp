#include "scenario/schema.h"

#include <cmath>
#include <sstream>

namespace poolsim::schema {

const Spec* Spec::field(const std::string& name) const {
  for (const auto& f : fields)
    if (f.name == name) return f.spec.get();
  return nullptr;
}

namespace {
std::shared_ptr<Spec> make(Kind kind, std::string description) {
  auto spec = std::make_shared<Spec>();
  spec->kind = kind;
  spec->description = std::move(description);
  return spec;
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

const char* kind_word(Kind kind) {
  switch (kind) {
    case Kind::Map: case Kind::Dict: return "a mapping";
    case Kind::Seq: return "a list";
    case Kind::Int: return "an integer";
    case Kind::Real: return "a number";
    case Kind::Bool: return "true or false";
    default: return "a single value";
  }
}

std::string describe_range(const Spec& spec) {
  auto show = [&](double v) {
    if (spec.kind == Kind::Quantity) return format_quantity(v, spec.dimension);
    std::ostringstream out;
    out << v;
    return out.str();
  };
  if (spec.min && spec.max)
    return spec.min_exclusive ? "above " + show(*spec.min) + " and at most " + show(*spec.max) : "between " + show(*spec.min) + " and " + show(*spec.max);
  if (spec.min) return std::string(spec.min_exclusive ? "above " : "at least ") + show(*spec.min);
  if (spec.max) return "at most " + show(*spec.max);
  return "";
}

void check_range(double value, const Spec& spec, const std::string& text, const Origin& origin,
                 const std::string& path, const YAML::Node& node) {
  bool low = spec.min && (spec.min_exclusive ? value <= *spec.min : value < *spec.min);
  bool high = spec.max && value > *spec.max;
  if (low || high)
    throw InputError(origin.locate(path, node), path, "value " + text + " is out of range: must be " + describe_range(spec));
}

// A quoted scalar (yaml-cpp tags it "!") is a string in YAML: "4" where a number belongs is read as 4
// by poolsim but as text by any other YAML reader (a JSON Schema check, a script editing the file).
template <typename Fail>
void reject_quoted_number(const YAML::Node& node, const Fail& fail) {
  if (node.Tag() == "!") fail("'" + node.Scalar() + "' is quoted, a string: a number is written without quotes");
}

// A byte count with its fraction shown ("4096.5").
std::string format_fraction(double bytes) {
  std::ostringstream out;
  out.precision(15);
  out << bytes;
  return out.str();
}

bool parse_integer(const std::string& text, long long* out) {
  std::istringstream in(text);
  in >> *out;
  return in && in.eof();
}

bool parse_real(const std::string& text, double* out) {
  // strtod also reads C's hexadecimal ("0x10", "0x1p3"), which yaml-cpp's as<double>() then refuses
  // with no file or key: not a number here.
  if (text.find_first_of("xX") != std::string::npos) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && std::isfinite(*out);
}

std::vector<std::string> field_names(const Spec& spec) {
  std::vector<std::string> names;
  for (const auto& f : spec.fields) names.push_back(f.name);
  return names;
}
}  // namespace

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

SpecPtr map(std::vector<Field> fields, std::string description, bool allow_unknown) {
  auto spec = make(Kind::Map, std::move(description));
  spec->fields = std::move(fields);
  spec->allow_unknown = allow_unknown;
  return spec;
}
SpecPtr dict(SpecPtr item, std::string description) {
  auto spec = make(Kind::Dict, std::move(description));
  spec->item = std::move(item);
  return spec;
}
SpecPtr seq(SpecPtr item, std::string description) {
  auto spec = make(Kind::Seq, std::move(description));
  spec->item = std::move(item);
  return spec;
}
SpecPtr string(std::string description) { return make(Kind::String, std::move(description)); }
SpecPtr one_of(std::vector<std::string> choices, std::string description) {
  auto spec = make(Kind::Enum, std::move(description));
  spec->choices = std::move(choices);
  return spec;
}
SpecPtr integer(std::optional<double> min, std::optional<double> max, std::string description) {
  auto spec = make(Kind::Int, std::move(description));
  spec->min = min;
  spec->max = max;
  return spec;
}
SpecPtr real(std::optional<double> min, std::optional<double> max, std::string description, bool min_exclusive) {
  auto spec = make(Kind::Real, std::move(description));
  spec->min = min;
  spec->max = max;
  spec->min_exclusive = min_exclusive;
  return spec;
}
SpecPtr boolean(std::string description) { return make(Kind::Bool, std::move(description)); }
SpecPtr quantity(Dimension dimension, std::optional<double> min, std::optional<double> max, std::string description,
                 bool min_exclusive) {
  auto spec = make(Kind::Quantity, std::move(description));
  spec->dimension = dimension;
  spec->min = min;
  spec->max = max;
  spec->min_exclusive = min_exclusive;
  return spec;
}
SpecPtr with_default(SpecPtr spec, std::string default_yaml) {
  auto copy = std::make_shared<Spec>(*spec);
  copy->default_value = std::move(default_yaml);
  return copy;
}
SpecPtr required(SpecPtr spec) {
  auto copy = std::make_shared<Spec>(*spec);
  copy->required = true;
  return copy;
}
SpecPtr whole_bytes(SpecPtr spec) {
  auto copy = std::make_shared<Spec>(*spec);
  copy->whole_bytes = true;
  return copy;
}
SpecPtr with_keywords(SpecPtr spec, std::vector<std::string> keywords) {
  auto copy = std::make_shared<Spec>(*spec);
  copy->keywords = std::move(keywords);
  return copy;
}

SourceLocation Origin::locate(const std::string& path, const YAML::Node& node) const {
  for (const auto& [key, text] : overridden)
    if (path == key || path.rfind(key + ".", 0) == 0 || path.rfind(key + "[", 0) == 0) return {text, 0, 0};
  SourceLocation where{file, 0, 0};
  if (node.IsDefined()) {
    auto mark = node.Mark();
    if (mark.line >= 0) {
      where.line = mark.line + 1;
      where.column = mark.column + 1;
      return where;
    }
  }
  // No position in the file: the node was made by a --set of a key inside it.
  for (const auto& [key, text] : overridden)
    if (key.rfind(path + ".", 0) == 0) return {text, 0, 0};
  return where;
}

void validate(const YAML::Node& node, const Spec& spec, const Origin& origin, const std::string& path) {
  auto fail = [&](const std::string& message) { throw InputError(origin.locate(path, node), path, message); };
  switch (spec.kind) {
    case Kind::Map: {
      if (node.IsNull()) {
        for (const auto& f : spec.fields)
          if (f.spec->required) fail("missing required key '" + f.name + "'");
        return;
      }
      if (!node.IsMap()) fail(std::string("expected ") + kind_word(spec.kind));
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar()) throw InputError(origin.locate(path, it->first), path, "keys must be plain words");
        std::string key = it->first.Scalar();
        const Spec* child = spec.field(key);
        if (!child) {
          if (spec.allow_unknown) continue;
          std::string message = "unknown key '" + key + "'";
          std::string suggestion = did_you_mean(key, field_names(spec));
          message += suggestion.empty() ? "; known keys: " + join(field_names(spec)) : " (did you mean '" + suggestion + "'?)";
          throw InputError(origin.locate(child_path(path, key), it->first), child_path(path, key), message);
        }
        validate(it->second, *child, origin, child_path(path, key));
      }
      for (const auto& f : spec.fields)
        if (f.spec->required && !node[f.name]) fail("missing required key '" + f.name + "'");
      return;
    }
    case Kind::Dict: {
      if (node.IsNull()) return;
      if (!node.IsMap()) fail(std::string("expected ") + kind_word(spec.kind));
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar()) throw InputError(origin.locate(path, it->first), path, "keys must be plain words");
        validate(it->second, *spec.item, origin, child_path(path, it->first.Scalar()));
      }
      return;
    }
    case Kind::Seq: {
      if (node.IsNull()) return;
      if (!node.IsSequence()) fail(std::string("expected ") + kind_word(spec.kind));
      for (size_t i = 0; i < node.size(); ++i)
        validate(node[i], *spec.item, origin, path + "[" + std::to_string(i) + "]");
      return;
    }
    default: break;
  }
  if (!node.IsScalar()) fail(std::string("expected ") + kind_word(spec.kind) + ", got " + (node.IsMap() ? "a mapping" : node.IsSequence() ? "a list" : "nothing"));
  const std::string text = node.Scalar();
  switch (spec.kind) {
    case Kind::String: return;
    case Kind::Enum: {
      for (const auto& c : spec.choices)
        if (c == text) return;
      std::string suggestion = did_you_mean(text, spec.choices);
      fail("unknown value '" + text + "'; expected one of: " + join(spec.choices) +
           (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"));
      return;
    }
    case Kind::Int: {
      reject_quoted_number(node, fail);
      long long value = 0;
      if (!parse_integer(text, &value)) fail("expected an integer, got '" + text + "'");
      // YAML readers disagree on "010" (yaml-cpp, as YAML 1.1, reads it as octal 8): refused rather than guessed.
      const std::size_t digits = text.find_first_not_of("+-");
      if (digits != std::string::npos && text[digits] == '0' && text.size() > digits + 1)
        fail("integer '" + text + "' has a leading zero (YAML 1.1 reads it as octal): write it without");
      check_range(static_cast<double>(value), spec, text, origin, path, node);
      return;
    }
    case Kind::Real: {
      for (const auto& k : spec.keywords)
        if (k == text) return;
      reject_quoted_number(node, fail);
      double value = 0;
      if (!parse_real(text, &value))
        fail("expected a number" + std::string(spec.keywords.empty() ? "" : " or " + spec.keywords.front()) + ", got '" + text + "'");
      check_range(value, spec, text, origin, path, node);
      return;
    }
    case Kind::Bool: {
      bool value = false;
      if (!YAML::convert<bool>::decode(node, value)) fail("expected true or false, got '" + text + "'");
      return;
    }
    case Kind::Quantity: {
      for (const auto& k : spec.keywords)
        if (k == text) return;
      std::string error;
      auto value = parse_quantity(text, spec.dimension, &error);
      if (!value) fail(error);
      check_range(*value, spec, "'" + text + "'", origin, path, node);
      // A block, page or memory of 4096.5 bytes exists nowhere (the model would round it somewhere,
      // silently). The tolerance is the product's rounding: "1.1GB" is whole.
      if (spec.whole_bytes && std::abs(*value - std::round(*value)) > 1e-12 * std::abs(*value))
        fail("'" + text + "' is " + format_fraction(*value) + " bytes: a size here is a whole number of bytes");
      return;
    }
    default: return;
  }
}

YAML::Node with_defaults(const YAML::Node& node, const Spec& spec) {
  switch (spec.kind) {
    case Kind::Map: {
      YAML::Node out(YAML::NodeType::Map);
      if (node && node.IsMap())
        for (auto it = node.begin(); it != node.end(); ++it) {
          const Spec* child = spec.field(it->first.Scalar());
          out[it->first.Scalar()] = child ? with_defaults(it->second, *child) : it->second;
        }
      for (const auto& f : spec.fields) {
        if (out[f.name]) continue;
        if (f.spec->default_value) {
          out[f.name] = with_defaults(YAML::Load(*f.spec->default_value), *f.spec);
        } else if (f.spec->kind == Kind::Map) {
          bool any_required = false;
          for (const auto& g : f.spec->fields) any_required |= g.spec->required;
          if (!any_required) out[f.name] = with_defaults(YAML::Node(), *f.spec);
        }
      }
      return out;
    }
    case Kind::Dict: {
      YAML::Node out(YAML::NodeType::Map);
      if (node && node.IsMap())
        for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = with_defaults(it->second, *spec.item);
      return out;
    }
    case Kind::Seq: {
      YAML::Node out(YAML::NodeType::Sequence);
      if (node && node.IsSequence())
        for (const auto& element : node) out.push_back(with_defaults(element, *spec.item));
      return out;
    }
    default: return node;
  }
}

const Spec* find(const Spec& root, const std::string& path, std::string* suggestion) {
  const Spec* spec = &root;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '.')) {
    if (spec->kind == Kind::Dict) {
      spec = spec->item.get();
      continue;
    }
    const Spec* next = spec->kind == Kind::Map ? spec->field(part) : nullptr;
    if (!next) {
      if (suggestion && spec->kind == Kind::Map) *suggestion = did_you_mean(part, field_names(*spec));
      return nullptr;
    }
    spec = next;
  }
  return spec;
}

double to_quantity(const YAML::Node& node, Dimension dimension) {
  return parse_quantity(node.Scalar(), dimension, nullptr).value_or(std::nan(""));
}

nlohmann::json scalar_to_json(const YAML::Node& node) {
  if (!node || node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    auto out = nlohmann::json::array();
    for (const auto& e : node) out.push_back(scalar_to_json(e));
    return out;
  }
  if (node.IsMap()) {
    auto out = nlohmann::json::object();
    for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = scalar_to_json(it->second);
    return out;
  }
  const std::string text = node.Scalar();
  long long integer_value = 0;
  if (parse_integer(text, &integer_value)) return integer_value;
  double real_value = 0;
  if (parse_real(text, &real_value)) return real_value;
  if (text == "true") return true;
  if (text == "false") return false;
  return text;
}

nlohmann::json to_json_schema(const Spec& spec) {
  nlohmann::json out;
  if (!spec.description.empty()) out["description"] = spec.description;
  if (spec.default_value) out["default"] = scalar_to_json(YAML::Load(*spec.default_value));
  switch (spec.kind) {
    case Kind::Map: {
      out["type"] = "object";
      out["properties"] = nlohmann::json::object();
      std::vector<std::string> required_names;
      for (const auto& f : spec.fields) {
        out["properties"][f.name] = to_json_schema(*f.spec);
        if (f.spec->required) required_names.push_back(f.name);
      }
      if (!required_names.empty()) out["required"] = required_names;
      out["additionalProperties"] = spec.allow_unknown;
      break;
    }
    case Kind::Dict:
      out["type"] = "object";
      out["additionalProperties"] = to_json_schema(*spec.item);
      break;
    case Kind::Seq:
      out["type"] = "array";
      out["items"] = to_json_schema(*spec.item);
      break;
    case Kind::String: out["type"] = "string"; break;
    case Kind::Enum: out["enum"] = spec.choices; break;
    case Kind::Int:
      out["type"] = "integer";
      if (spec.min) out["minimum"] = *spec.min;
      if (spec.max) out["maximum"] = *spec.max;
      break;
    case Kind::Real: {
      nlohmann::json number = {{"type", "number"}};
      if (spec.min) number[spec.min_exclusive ? "exclusiveMinimum" : "minimum"] = *spec.min;
      if (spec.max) number["maximum"] = *spec.max;
      if (spec.keywords.empty()) {
        for (auto it = number.begin(); it != number.end(); ++it) out[it.key()] = it.value();
      } else {
        out["anyOf"] = {number, {{"enum", spec.keywords}}};
      }
      break;
    }
    case Kind::Bool: out["type"] = "boolean"; break;
    case Kind::Quantity: {
      std::string units;
      for (const auto& u : unit_names(spec.dimension)) units += (units.empty() ? "" : "|") + u;
      if (spec.dimension == Dimension::Ratio) units += "|";  // a ratio may be a bare number
      std::string pattern = "^[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?\\s*(" + units + ")$";
      if (spec.keywords.empty()) {
        out["type"] = "string";
        out["pattern"] = pattern;
      } else {
        out["anyOf"] = {{{"type", "string"}, {"pattern", pattern}}, {{"enum", spec.keywords}}};
      }
      out["x-dimension"] = dimension_name(spec.dimension);
      break;
    }
  }
  return out;
}

}  // namespace poolsim::schema
