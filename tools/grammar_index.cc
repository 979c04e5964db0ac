// Build tool: writes the start analysis of every pattern of grammar/*.re2 (the literal text a
// match starts with and the range of its first byte, from RE2) as a C++ table, so that trtlens
// need not compile its built-in patterns to learn it at every start.
//
// usage: trtlens_grammar_index GRAMMAR_DIR OUT.cc   (OUT.cc is rewritten only when it changes)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ingest/grammar.h"

namespace trtlens {

// Read from GRAMMAR_DIR instead: every pattern is then analysed here.
const std::vector<std::pair<std::string, std::string>>& embedded_grammar_files() {
  static const std::vector<std::pair<std::string, std::string>> none;
  return none;
}
const std::vector<GrammarStart>& embedded_grammar_starts() {
  static const std::vector<GrammarStart> none;
  return none;
}

}  // namespace trtlens

namespace {

// Bytes as a C++ string literal: octal escapes of three digits for anything but plain ASCII
// letters and digits, so that no escape can run into the byte after it.
std::string literal(const std::string& bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
        c == '_') {
      out += char(c);
    } else {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\%03o", c);
      out += esc;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: trtlens_grammar_index GRAMMAR_DIR OUT.cc\n";
    return 2;
  }
  std::ostringstream out;
  try {
    auto grammar = trtlens::Grammar::load(argv[1]);
    out << "// Generated from grammar/*.re2 by tools/grammar_index.cc. Do not edit.\n"
           "#include \"ingest/grammar.h\"\n\n"
           "namespace trtlens {\n\n"
           "const std::vector<GrammarStart>& embedded_grammar_starts() {\n"
           "  static const std::vector<GrammarStart> starts = {\n";
    for (const auto& p : grammar->patterns())
      out << "      {" << literal(p->name) << ", " << literal(p->regex) << ", "
          << literal(p->literal_prefix) << ", " << p->literal_prefix.size() << ", "
          << unsigned(p->first_min) << ", " << unsigned(p->first_max) << "},\n";
    out << "  };\n  return starts;\n}\n\n}  // namespace trtlens\n";
  } catch (const std::exception& e) {
    std::cerr << "trtlens_grammar_index: " << e.what() << "\n";
    return 2;
  }
  const std::string text = out.str();
  std::ifstream old(argv[2], std::ios::binary);
  std::stringstream was;
  was << old.rdbuf();
  if (old && was.str() == text) return 0;
  std::ofstream f(argv[2], std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) {
    std::cerr << "trtlens_grammar_index: cannot write " << argv[2] << "\n";
    return 2;
  }
  return 0;
}
