#include "render/escape.h"

#include <utf8proc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "io/library.h"
#include "model/values.h"

namespace trtlens {
namespace {

void hex_byte(std::string& out, unsigned char c) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

uint32_t decode3(std::string_view s, size_t i) {
  return (uint32_t(static_cast<unsigned char>(s[i]) & 0x0f) << 12) |
         (uint32_t(static_cast<unsigned char>(s[i + 1]) & 0x3f) << 6) |
         uint32_t(static_cast<unsigned char>(s[i + 2]) & 0x3f);
}

// Bidi embeddings, overrides, isolates and marks reorder what follows them on screen (a name
// can then look like another); line and paragraph separators break lines like a newline.
bool is_bidi_or_separator(std::string_view s, size_t i) {
  const uint32_t cp = decode3(s, i);
  return cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// Control characters and invalid UTF-8 as \xNN, bidi controls and line separators as \uNNNN;
// valid text as is.
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
    if (n == 3 && is_bidi_or_separator(s, i)) {
      char buf[9];
      std::snprintf(buf, sizeof buf, "\\u%04X", unsigned(decode3(s, i)));
      out += buf;
      i += 3;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// A cell a spreadsheet reads as a number is data, not a formula: "-1" stays as it is.
bool is_number(std::string_view v) {
  if (v.empty()) return false;
  std::string t(v);
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && t.find_first_of(" \t") == std::string::npos;
}

}  // namespace

std::string escape_terminal(std::string_view s) { return visible(s); }

std::string escape_csv(std::string_view s) {
  std::string v = visible(s);
  // What spreadsheets run as a formula (OWASP's list); tab and CR are already \xNN here.
  bool formula = !v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '@' || v[0] == '\t' ||
                                v[0] == '\r' || (v[0] == '-' && !is_number(v)));
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

namespace {

// utf8proc is opened by the first name that is not ASCII, not linked: its loading cost every
// run a few percent of trtlens's start-up, and most names are ASCII.
struct Utf8proc {
  decltype(&::utf8proc_iterate) iterate = nullptr;
  decltype(&::utf8proc_charwidth) charwidth = nullptr;
};

const Utf8proc& utf8proc() {
  static const Utf8proc u = [] {
    static Library lib(TRTLENS_UTF8PROC_SONAME);
    Utf8proc u;
    if (!lib.get(u.iterate, "utf8proc_iterate") || !lib.get(u.charwidth, "utf8proc_charwidth"))
      u = {};
    return u;
  }();
  return u;
}

}  // namespace

size_t display_width(std::string_view s) {
  // utf8proc rather than wcwidth(): the answer must not depend on the user's locale. ASCII is
  // answered here as utf8proc answers it: controls and DEL take no column, the rest one.
  size_t w = 0, i = 0;
  for (; i < s.size() && static_cast<unsigned char>(s[i]) < 0x80; ++i)
    w += s[i] >= 0x20 && s[i] != 0x7f;
  if (i == s.size()) return w;
  const Utf8proc& u = utf8proc();
  auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i);
  utf8proc_ssize_t left = utf8proc_ssize_t(s.size() - i);
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    // Without the library (not installed): one column per character.
    utf8proc_ssize_t n = u.iterate
                             ? u.iterate(p, left, &cp)
                             : utf8proc_ssize_t(utf8_sequence_length(s, s.size() - size_t(left)));
    if (n <= 0) {  // not UTF-8 (callers escape first): one column per byte
      ++w, ++p, --left;
      continue;
    }
    w += u.charwidth ? size_t(u.charwidth(cp)) : 1;
    p += n, left -= n;
  }
  return w;
}

}  // namespace trtlens
