#include "render/text_table.h"

#include <algorithm>

#include "render/escape.h"

namespace trtlens {

void write_terminal_table(const TextTable& t, std::ostream& os, size_t max_cell) {
  const size_t n = t.headers.size();
  std::vector<std::vector<std::string>> cells;
  cells.reserve(t.rows.size());
  std::vector<size_t> width(n, 0);
  for (size_t c = 0; c < n; ++c) width[c] = display_width(t.headers[c]);
  for (const auto& row : t.rows) {
    std::vector<std::string> out;
    for (size_t c = 0; c < n; ++c) {
      std::string v = escape_terminal(c < row.size() ? row[c] : "");
      if (max_cell && display_width(v) > max_cell) {
        size_t keep = 0, w = 0;
        while (keep < v.size() && w < max_cell - 1) {
          ++keep;
          while (keep < v.size() && (static_cast<unsigned char>(v[keep]) & 0xc0) == 0x80) ++keep;
          ++w;
        }
        v = v.substr(0, keep) + "\xe2\x80\xa6";
      }
      width[c] = std::max(width[c], display_width(v));
      out.push_back(std::move(v));
    }
    cells.push_back(std::move(out));
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (size_t c = 0; c < n; ++c) {
      size_t pad = width[c] - display_width(row[c]);
      bool right = c < t.right_align.size() && t.right_align[c];
      if (c) s += "  ";
      if (right) s.append(pad, ' ');
      s += row[c];
      if (!right && c + 1 < n) s.append(pad, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    os << s << '\n';
  };
  std::vector<std::string> header;
  for (const auto& h : t.headers) header.push_back(escape_terminal(h));
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
  if (format == "csv") write_csv(t, os);
  else if (format == "md" || format == "markdown") write_markdown_table(t, os);
  else write_terminal_table(t, os);
}

}  // namespace trtlens
