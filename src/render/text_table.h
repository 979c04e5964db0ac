// A table of cells, written as an aligned terminal table, CSV or GitHub Markdown. Cells hold
// raw text; each writer escapes it for its own output.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace trtlens {

struct TextTable {
  std::vector<std::string> headers;
  std::vector<bool> right_align;  // per column; numbers read better right-aligned
  std::vector<std::vector<std::string>> rows;
};

void write_terminal_table(const TextTable& t, std::ostream& os, size_t max_cell = 0);
void write_csv(const TextTable& t, std::ostream& os);
void write_markdown_table(const TextTable& t, std::ostream& os);

// "table" | "csv" | "md" | "markdown".
void write_table(const TextTable& t, const std::string& format, std::ostream& os);

}  // namespace trtlens
