// Writes a diff page (render/html.h write_html_diff) for two inputs so the browser test can open
// one before the diff command exists. The change rows here are a plain name/tactic comparison,
// only to have rows to show: the real diff lives in the diff work.
#include <fstream>
#include <iostream>
#include <set>

#include "ingest/grammar.h"
#include "ingest/load.h"
#include "io/input.h"
#include "render/html.h"

int main(int argc, char** argv) {
  using namespace trtlens;
  if (argc != 4) {
    std::cerr << "usage: diff_page A B OUT.html\n";
    return 2;
  }
  auto grammar = Grammar::load();
  Capture a = load_capture({argv[1]}, *grammar, {});
  Capture b = load_capture({argv[2]}, *grammar, {});
  const Build *ba = a.final_build(), *bb = b.final_build();
  if (!ba || !bb) return 2;
  std::map<std::string, const Layer*> in_b;
  for (const auto& l : bb->layers) in_b[l.name] = &l;
  std::set<std::string> in_a;
  std::vector<DiffRow> rows;
  for (const auto& l : ba->layers) {
    in_a.insert(l.name);
    auto it = in_b.find(l.name);
    if (it == in_b.end())
      rows.push_back({"removed", l.name, "", "layer only in A", "", ""});
    else if (l.tactic != it->second->tactic)
      rows.push_back({"changed", l.name, l.name, "tactic", l.tactic.value_or(""),
                      it->second->tactic.value_or("")});
  }
  for (const auto& l : bb->layers)
    if (!in_a.count(l.name)) rows.push_back({"added", "", l.name, "layer only in B", "", ""});
  ReportOptions o;
  o.title = "trtlens diff";
  std::ofstream out(argv[3], std::ios::binary);
  write_html_diff(a, *ba, b, *bb, rows, o, out, argv[1], argv[2]);
  return out ? 0 : 2;
}
