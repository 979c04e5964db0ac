// A table of cells, written as an aligned terminal table, CSV or GitHub Markdown. Cells hold
// raw text; each writer escapes it for its own output.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/source.h"

namespace trtlens {

struct TextTable {
  std::vector<std::string> headers;
  std::vector<bool> right_align;  // per column; numbers read better right-aligned
  std::vector<std::vector<std::string>> rows;
};

// How terminal output looks; the CLI sets it once from the terminal and the user's options.
struct TerminalStyle {
  size_t width = 0;   // columns a table may take; 0 = no limit (the output is not a terminal)
  bool wide = false;  // keep cells whole (up to kMaxCellColumns) even past `width`
  bool color = false;
};
void set_terminal_style(const TerminalStyle& style);
const TerminalStyle& terminal_style();

// No cell is ever wider than this, --wide or not: a pathological 1 MB layer name must not
// turn one table row into a megabyte of spaces.
inline constexpr size_t kMaxCellColumns = 512;

// `s` (escaped) cut to at most `columns` display columns by replacing its middle with '…', so
// both the start and the distinguishing end of a long layer name stay visible.
std::string cut_middle(std::string_view s, size_t columns);

// Colour for what a reader should see first; returns `text` unchanged when colour is off.
enum class Paint { Error, Warning, Info, Fail, Ok };
std::string paint(Paint p, std::string_view text);
std::string paint_severity(Severity s);  // "error" / "warning" / "info"

// `max_cell` (0 = none) caps every cell before the table is fitted to the terminal width.
void write_terminal_table(const TextTable& t, std::ostream& os, size_t max_cell = 0);
void write_csv(const TextTable& t, std::ostream& os);
void write_markdown_table(const TextTable& t, std::ostream& os);

// "table" | "csv" | "md" | "markdown".
void write_table(const TextTable& t, const std::string& format, std::ostream& os);

}  // namespace trtlens
