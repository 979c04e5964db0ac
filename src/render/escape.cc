#include "render/escape.h"

#include <utf8proc.h>

#include "model/values.h"

#include <cstdio>

namespace trtlens {
namespace {

void hex_byte(std::string& out, unsigned char c) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

// Control characters and invalid UTF-8 as \xNN; valid text as is.
std::string visible(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      hex_byte(out, c);
      ++i;
      continue;
    }
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      hex_byte(out, c);
      ++i;
      continue;
    }
    // C1 controls (U+0080..U+009F) can act as escape sequences on some terminals.
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {
      hex_byte(out, c);
      hex_byte(out, static_cast<unsigned char>(s[i + 1]));
      i += 2;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

std::string escape_terminal(std::string_view s) { return visible(s); }

std::string escape_csv(std::string_view s) {
  std::string v = visible(s);
  bool formula = !v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '@');
  if (formula) v.insert(v.begin(), '\'');
  if (v.find_first_of(",\"\n") == std::string::npos && !formula) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += "\"\"";
    else out.push_back(c);
  }
  out += '"';
  return out;
}

std::string escape_markdown(std::string_view s) {
  std::string v = visible(s);
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '\\': out += "\\\\"; break;
      case '`': out += "\\`"; break;
      case '*': out += "\\*"; break;
      case '_': out += "\\_"; break;
      case '[': out += "\\["; break;
      case ']': out += "\\]"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string escape_html(std::string_view s) {
  std::string v = visible(s);
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string escape_dot(std::string_view s) {
  std::string v = visible(s);
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

size_t display_width(std::string_view s) {
  // utf8proc rather than wcwidth(): the answer must not depend on the user's locale.
  size_t w = 0;
  auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = utf8proc_ssize_t(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) {  // not UTF-8 (callers escape first): one column per byte
      ++w, ++p, --left;
      continue;
    }
    w += size_t(utf8proc_charwidth(cp));
    p += n, left -= n;
  }
  return w;
}

}  // namespace trtlens
