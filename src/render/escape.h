// Names come from logs people attach to tickets: every output escapes them its own way.
#pragma once

#include <string>
#include <string_view>

namespace trtlens {

// Terminal: control characters and bytes that are not UTF-8 become \xNN (no escape sequences
// reach the terminal).
std::string escape_terminal(std::string_view s);

// CSV field (RFC 4180 quoting; cells that a spreadsheet would run as a formula get a quote).
std::string escape_csv(std::string_view s);

// Markdown table cell / inline text.
std::string escape_markdown(std::string_view s);

// HTML text and attribute values.
std::string escape_html(std::string_view s);

// Inside a DOT double-quoted string.
std::string escape_dot(std::string_view s);

// Columns an (already escaped, so valid UTF-8) string takes on a terminal: East Asian wide
// characters count two, combining marks none (utf8proc's character widths).
size_t display_width(std::string_view s);

}  // namespace trtlens
