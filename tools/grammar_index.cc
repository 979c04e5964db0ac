// Build tool: writes the start analysis of every pattern of grammar/*.re2 (the literal text a
// match starts with and the range of its first byte, from RE2) as a C++ table, and the Hyperscan
// database of their "# contains:" literals, serialized, so that trtlens need not compile its
// built-in patterns to learn the one, nor the literals to get the other, at every start.
//
// usage: trtlens_grammar_index GRAMMAR_DIR OUT.cc   (OUT.cc is rewritten only when it changes)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#ifdef TRTLENS_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif

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
const GrammarLiteralDatabase& embedded_literal_database() {
  static const GrammarLiteralDatabase none{nullptr, 0, nullptr, 0};
  return none;
}

}  // namespace trtlens

namespace {

// Bytes as a C++ string literal: octal escapes of three digits for anything but ASCII letters,
// digits, space and '_', so that no escape can run into the byte after it.
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

// The literals serialized as a Hyperscan database for a generic x86-64 CPU (the binary may run
// on another machine than the build's; on this one it scans as fast as one tuned for it), or
// "" without Hyperscan.
std::string literal_database(const std::vector<std::string>& literals) {
#ifdef TRTLENS_HAVE_HYPERSCAN
  if (literals.empty() || literals.size() > 64) return "";
  std::vector<const char*> exprs;
  std::vector<size_t> lens;
  std::vector<unsigned> ids, flags(literals.size(), 0);
  for (size_t i = 0; i < literals.size(); ++i) {
    exprs.push_back(literals[i].data());
    lens.push_back(literals[i].size());
    ids.push_back(unsigned(i));
  }
  hs_platform_info_t platform{};
  platform.tune = HS_TUNE_FAMILY_GENERIC;
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                           unsigned(exprs.size()), HS_MODE_BLOCK, &platform, &db,
                           &error) != HS_SUCCESS) {
    hs_free_compile_error(error);
    return "";
  }
  char* bytes = nullptr;
  size_t size = 0;
  std::string out;
  if (hs_serialize_database(db, &bytes, &size) == HS_SUCCESS) {
    out.assign(bytes, size);
    std::free(bytes);
  }
  hs_free_database(db);
  return out;
#else
  (void)literals;
  return "";
#endif
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
    out << "  };\n  return starts;\n}\n\n";
    std::set<std::string> unique;
    for (const auto& p : grammar->patterns()) unique.insert(p->contains.begin(), p->contains.end());
    const std::vector<std::string> literals(unique.begin(), unique.end());
    const std::string database = literal_database(literals);
    out << "namespace {\nconst char* const kLiterals[] = {\n";
    for (const std::string& l : literals) out << "    " << literal(l) << ",\n";
    out << "    nullptr};\n";
    // As a string literal: a char array initialiser of 40 KB compiles slowly.
    out << "const char kDatabase[] =";
    for (size_t i = 0; i < database.size() || i == 0; i += 48)
      out << "\n    " << literal(database.substr(i, 48));
    out << ";\n}  // namespace\n\n"
           "const GrammarLiteralDatabase& embedded_literal_database() {\n"
           "  static const GrammarLiteralDatabase db{kLiterals, "
        << literals.size() << ", kDatabase, " << database.size()
        << "};\n  return db;\n}\n\n}  // namespace trtlens\n";
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
