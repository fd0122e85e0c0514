// UTF-8 checks for input text. Every name and value read from an input can end up in a JSON output
// (nlohmann refuses to dump a string that is not UTF-8: an exception with no file, line or key, after
// the simulations), so text that is not UTF-8 is refused where it is read.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

#include "core/errors.h"

namespace poolsim {

// The offset of the first byte that does not begin a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF), or npos.
inline std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (b >= 0xC2 && b <= 0xDF) n = 1;
    else if (b == 0xE0) n = 2, lo = 0xA0;
    else if (b >= 0xE1 && b <= 0xEC) n = 2;
    else if (b == 0xED) n = 2, hi = 0x9F;
    else if (b >= 0xEE && b <= 0xEF) n = 2;
    else if (b == 0xF0) n = 3, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3) n = 3;
    else if (b == 0xF4) n = 3, hi = 0x8F;
    else return i;
    if (i + n >= text.size()) return i;  // cut short by the end
    for (std::size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

// The encoding of a text that is UTF-16 or UTF-32 by its byte order mark, or UTF-16 by the NUL byte
// beside its first ASCII character (a file saved as "Unicode" on Windows); nullptr otherwise.
inline const char* wide_encoding_of(std::string_view text) {
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  using namespace std::string_view_literals;
  if (starts("\xFF\xFE\0\0"sv) || starts("\0\0\xFE\xFF"sv)) return "UTF-32";  // before UTF-16LE: its mark begins FF FE
  if (starts("\xFF\xFE"sv) || starts("\xFE\xFF"sv)) return "UTF-16";
  if (text.size() >= 2 && text[0] != '\0' && text[1] == '\0') return "UTF-16LE";
  if (text.size() >= 2 && text[0] == '\0' && text[1] != '\0') return "UTF-16BE";
  return nullptr;
}

// InputError at the line and column (in characters) of the first byte of `text` that is not UTF-8.
// `first_line` is the line `text` starts on in `origin_name`.
inline void require_utf8(std::string_view text, const std::string& origin_name, const std::string& key = "",
                         int first_line = 1) {
  // Said as such: its first byte read as "not UTF-8" with a hint about Latin-1 that does not apply.
  if (const char* encoding = wide_encoding_of(text))
    throw InputError({origin_name, first_line, 1}, key,
                     std::string("the text is ") + encoding + ", not UTF-8 (inputs must be UTF-8 text; convert it with iconv -f " + encoding +
                         " -t utf-8)");
  const std::size_t bad = invalid_utf8_at(text);
  if (bad == std::string_view::npos) return;
  int line = first_line, column = 1;
  for (std::size_t i = 0; i < bad; ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') ++line, column = 1;
    else if ((b & 0xC0) != 0x80) ++column;  // continuation bytes are part of the character before
  }
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
  throw InputError({origin_name, line, column}, key,
                   std::string("byte ") + byte + " is not UTF-8 (inputs must be UTF-8 text; a Latin-1 file converts with iconv -f latin1 -t utf-8)");
}

}  // namespace poolsim
