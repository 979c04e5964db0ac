#include "render/text_table.h"

#include <algorithm>

#include "render/escape.h"

namespace trtlens {

namespace {

TerminalStyle g_style;

struct CodePoint {
  size_t begin, end, width;
};

// Code points of valid UTF-8 (escaped text) with their display widths.
std::vector<CodePoint> code_points(std::string_view s) {
  std::vector<CodePoint> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xc0) == 0x80) ++j;
    out.push_back({i, j, display_width(s.substr(i, j - i))});
    i = j;
  }
  return out;
}

}  // namespace

void set_terminal_style(const TerminalStyle& style) { g_style = style; }
const TerminalStyle& terminal_style() { return g_style; }

std::string cut_middle(std::string_view s, size_t columns) {
  if (display_width(s) <= columns) return std::string(s);
  if (columns == 0) return "";
  static const std::string kEllipsis = "\xe2\x80\xa6";
  auto cps = code_points(s);
  const size_t budget = columns - 1;
  const size_t head_budget = (budget + 1) / 2, tail_budget = budget - head_budget;
  size_t head = 0, w = 0;  // code points kept at the start
  while (head < cps.size() && w + cps[head].width <= head_budget) w += cps[head++].width;
  size_t tail = cps.size(), tw = 0;  // first code point kept at the end
  while (tail > head && tw + cps[tail - 1].width <= tail_budget) tw += cps[--tail].width;
  // A wide character that did not fit in the head leaves a column free: give it to the tail.
  while (tail > head && w + tw + cps[tail - 1].width <= budget) tw += cps[--tail].width;
  // Zero-width code points at the tail's start belong to a base character that was cut.
  while (tail < cps.size() && cps[tail].width == 0) ++tail;
  std::string out(s.substr(0, head < cps.size() ? cps[head].begin : s.size()));
  out += kEllipsis;
  if (tail < cps.size()) out += s.substr(cps[tail].begin);
  return out;
}

std::string paint(Paint p, std::string_view text) {
  if (!g_style.color) return std::string(text);
  const char* code = "";
  switch (p) {
    case Paint::Error:
      code = "\x1b[1;31m";
      break;
    case Paint::Fail:
      code = "\x1b[1;31m";
      break;
    case Paint::Warning:
      code = "\x1b[33m";
      break;
    case Paint::Info:
      code = "\x1b[36m";
      break;
    case Paint::Ok:
      code = "\x1b[32m";
      break;
  }
  return code + std::string(text) + "\x1b[0m";
}

std::string paint_severity(Severity s) {
  Paint p = s == Severity::Error     ? Paint::Error
            : s == Severity::Warning ? Paint::Warning
                                     : Paint::Info;
  return paint(p, to_string(s));
}

void write_terminal_table(const TextTable& t, std::ostream& os, size_t max_cell) {
  const size_t n = t.headers.size();
  const size_t cap = max_cell ? std::min(max_cell, kMaxCellColumns) : kMaxCellColumns;
  auto right = [&](size_t c) { return c < t.right_align.size() && t.right_align[c]; };
  std::vector<std::string> header;
  std::vector<size_t> width(n, 0), min_width(n, 0);
  for (size_t c = 0; c < n; ++c) {
    header.push_back(escape_terminal(t.headers[c]));
    width[c] = display_width(header[c]);
  }
  std::vector<std::vector<std::string>> cells;
  cells.reserve(t.rows.size());
  for (const auto& row : t.rows) {
    std::vector<std::string> out;
    for (size_t c = 0; c < n; ++c) {
      std::string v = escape_terminal(c < row.size() ? row[c] : "");
      if (display_width(v) > cap) v = cut_middle(v, cap);
      width[c] = std::max(width[c], display_width(v));
      out.push_back(std::move(v));
    }
    cells.push_back(std::move(out));
  }
  // Fit the terminal: narrow the widest text column, one column at a time, never below its
  // header or 20 columns (so tactics and most type names stay whole); numbers (right-aligned)
  // are never cut.
  if (g_style.width && !g_style.wide) {
    size_t total = n ? 2 * (n - 1) : 0;
    for (size_t c = 0; c < n; ++c) {
      total += width[c];
      min_width[c] =
          right(c) ? width[c] : std::min(width[c], std::max<size_t>(display_width(header[c]), 20));
    }
    while (total > g_style.width) {
      size_t widest = n;
      for (size_t c = 0; c < n; ++c)
        if (width[c] > min_width[c] && (widest == n || width[c] > width[widest])) widest = c;
      if (widest == n) break;  // as narrow as it goes
      --width[widest];
      --total;
    }
    for (auto& row : cells)
      for (size_t c = 0; c < n; ++c)
        if (display_width(row[c]) > width[c]) row[c] = cut_middle(row[c], width[c]);
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (size_t c = 0; c < n; ++c) {
      size_t pad = width[c] - display_width(row[c]);
      if (c) s += "  ";
      if (right(c)) s.append(pad, ' ');
      s += row[c];
      if (!right(c) && c + 1 < n) s.append(pad, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    os << s << '\n';
  };
  line(header);
  std::vector<std::string> rule;
  for (size_t c = 0; c < n; ++c) rule.emplace_back(width[c], '-');
  line(rule);
  for (const auto& row : cells) line(row);
}

void write_csv(const TextTable& t, std::ostream& os) {
  auto line = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < t.headers.size(); ++c) {
      if (c) os << ',';
      os << escape_csv(c < row.size() ? row[c] : "");
    }
    os << '\n';
  };
  line(t.headers);
  for (const auto& row : t.rows) line(row);
}

void write_markdown_table(const TextTable& t, std::ostream& os) {
  auto line = [&](const std::vector<std::string>& row) {
    os << '|';
    for (size_t c = 0; c < t.headers.size(); ++c)
      os << ' ' << escape_markdown(c < row.size() ? row[c] : "") << " |";
    os << '\n';
  };
  line(t.headers);
  os << '|';
  for (size_t c = 0; c < t.headers.size(); ++c)
    os << ((c < t.right_align.size() && t.right_align[c]) ? " ---: |" : " --- |");
  os << '\n';
  for (const auto& row : t.rows) line(row);
}

void write_table(const TextTable& t, const std::string& format, std::ostream& os) {
  if (format == "csv")
    write_csv(t, os);
  else if (format == "md" || format == "markdown")
    write_markdown_table(t, os);
  else
    write_terminal_table(t, os);
}

}  // namespace trtlens
