// Quantities with units. Scenario and trace files write "186GiB", "100Gbps", "80us", "2.6GHz";
// a bare number where a unit is needed is an error. Internally: bytes, bytes per second, seconds, hertz.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace poolsim {

enum class Dimension { Bytes, BytesPerSecond, Seconds, Hertz, Ratio, PerSecond };

const char* dimension_name(Dimension dimension);

// Parses "<number><unit>" for the given dimension. Returns std::nullopt with a message in *error
// when the text has no unit, an unknown unit or no number.
//  Bytes:          B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024)
//  BytesPerSecond: bps, Kbps, Mbps, Gbps, Tbps (bits, /8), B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s
//  Seconds:        ns, us, ms, s, min, h
//  Hertz:          Hz, KHz, MHz, GHz
//  Ratio:          "%" (37% -> 0.37), or a bare number
//  PerSecond:      /s, K/s, M/s (rates such as IOPS: "1M/s", "180K/s")
std::optional<double> parse_quantity(const std::string& text, Dimension dimension, std::string* error);

// Formats a value with a readable unit, e.g. 1.5e-5 s -> "15us". Used in tables and messages.
std::string format_quantity(double value, Dimension dimension);

// A bare number to `digits` significant digits ("%g": 1e+19, 2.93e+14, 0.66), for messages that
// quote a figure read from an input.
std::string format_significant(double value, int digits = 3);

// Unit names accepted for a dimension (for error messages and the JSON schema).
std::vector<std::string> unit_names(Dimension dimension);

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * kKiB;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kUs = 1e-6;
constexpr double kMs = 1e-3;

}  // namespace poolsim
