#include "core/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace poolsim {

namespace {
using UnitTable = std::vector<std::pair<std::string, double>>;

const UnitTable& units_for(Dimension dimension) {
  static const UnitTable bytes = {{"B", 1},          {"KB", 1e3},       {"MB", 1e6},       {"GB", 1e9},
                                  {"TB", 1e12},      {"KiB", kKiB},     {"MiB", kMiB},     {"GiB", kGiB},
                                  {"TiB", kGiB * 1024}};
  static const UnitTable rate = {{"bps", 1.0 / 8},   {"Kbps", 1e3 / 8},   {"Mbps", 1e6 / 8},  {"Gbps", 1e9 / 8},
                                 {"Tbps", 1e12 / 8}, {"B/s", 1},          {"KB/s", 1e3},      {"MB/s", 1e6},
                                 {"GB/s", 1e9},      {"TB/s", 1e12},      {"KiB/s", kKiB},     {"MiB/s", kMiB},    {"GiB/s", kGiB}};
  static const UnitTable seconds = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"min", 60}, {"h", 3600}};
  static const UnitTable hertz = {{"Hz", 1}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  static const UnitTable ratio = {{"%", 0.01}, {"", 1}};
  static const UnitTable per_second = {{"/s", 1}, {"K/s", 1e3}, {"M/s", 1e6}};
  switch (dimension) {
    case Dimension::Bytes: return bytes;
    case Dimension::BytesPerSecond: return rate;
    case Dimension::Seconds: return seconds;
    case Dimension::Hertz: return hertz;
    case Dimension::Ratio: return ratio;
    case Dimension::PerSecond: return per_second;
  }
  return bytes;
}
}  // namespace

const char* dimension_name(Dimension dimension) {
  switch (dimension) {
    case Dimension::Bytes: return "a size";
    case Dimension::BytesPerSecond: return "a data rate";
    case Dimension::Seconds: return "a duration";
    case Dimension::Hertz: return "a frequency";
    case Dimension::Ratio: return "a ratio";
    case Dimension::PerSecond: return "an event rate";
  }
  return "a quantity";
}

std::vector<std::string> unit_names(Dimension dimension) {
  std::vector<std::string> names;
  for (const auto& [name, factor] : units_for(dimension))
    if (!name.empty()) names.push_back(name);
  return names;
}

std::optional<double> parse_quantity(const std::string& raw, Dimension dimension, std::string* error) {
  auto fail = [&](const std::string& message) -> std::optional<double> {
    if (error) *error = message;
    return std::nullopt;
  };
  std::string text;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  if (text.empty()) return fail(std::string("expected ") + dimension_name(dimension) + ", got an empty value");
  const char* begin = text.c_str();
  char* end = nullptr;
  double number = std::strtod(begin, &end);
  // strtod also reads C's hexadecimal ("0x10"), which no YAML reader takes for a number.
  const bool hexadecimal = std::string(begin, static_cast<const char*>(end)).find_first_of("xX") != std::string::npos;
  if (end == begin || !std::isfinite(number) || hexadecimal)
    return fail(std::string("expected ") + dimension_name(dimension) + " such as " +
                (dimension == Dimension::Bytes            ? "\"16KiB\""
                 : dimension == Dimension::BytesPerSecond ? "\"100Gbps\""
                 : dimension == Dimension::Seconds        ? "\"80us\""
                 : dimension == Dimension::Hertz          ? "\"2.6GHz\""
                 : dimension == Dimension::PerSecond      ? "\"180K/s\""
                                                          : "\"37%\"") +
                ", got \"" + raw + "\"");
  std::string unit(end);
  for (const auto& [name, factor] : units_for(dimension))
    if (unit == name) {
      // 1e308 is a number, 1e308 M/s is not: the unit's factor can carry it past a double.
      if (!std::isfinite(number * factor)) return fail("\"" + raw + "\" is past what a number holds");
      return number * factor;
    }
  std::string accepted;
  for (const auto& name : unit_names(dimension)) accepted += (accepted.empty() ? "" : ", ") + name;
  if (unit.empty())
    return fail("\"" + raw + "\" has no unit; " + dimension_name(dimension) + " needs one of: " + accepted);
  return fail("unknown unit \"" + unit + "\" for " + dimension_name(dimension) + "; use one of: " + accepted);
}

std::string format_significant(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

std::string format_quantity(double value, Dimension dimension) {
  struct Step {
    double factor;
    const char* name;
  };
  std::vector<Step> steps;
  switch (dimension) {
    case Dimension::Bytes: steps = {{kGiB * 1024, "TiB"}, {kGiB, "GiB"}, {kMiB, "MiB"}, {kKiB, "KiB"}, {1, "B"}}; break;
    case Dimension::BytesPerSecond: steps = {{1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}, {1, "B/s"}}; break;
    case Dimension::Seconds: steps = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}; break;
    case Dimension::Hertz: steps = {{1e9, "GHz"}, {1e6, "MHz"}, {1e3, "KHz"}, {1, "Hz"}}; break;
    case Dimension::Ratio: steps = {{0.01, "%"}}; break;
    case Dimension::PerSecond: steps = {{1e6, "M/s"}, {1e3, "K/s"}, {1, "/s"}}; break;
  }
  const Step* chosen = &steps.back();
  for (const auto& step : steps)
    if (std::fabs(value) >= step.factor) {
      chosen = &step;
      break;
    }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g%s", value / chosen->factor, chosen->name);
  return buffer;
}

}  // namespace poolsim
