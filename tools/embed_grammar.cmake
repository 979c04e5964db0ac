# Writes OUT: a C++ file holding every GRAMMAR_DIR/*.re2 as a raw string literal.
file(GLOB files ${GRAMMAR_DIR}/*.re2)
list(SORT files)
set(body "")
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(APPEND body "    {\"${name}\", R\"trtlens_grammar(${text})trtlens_grammar\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from grammar/*.re2 by tools/embed_grammar.cmake. Do not edit.
#include \"ingest/grammar.h\"

namespace trtlens {

const std::vector<std::pair<std::string, std::string>>& embedded_grammar_files() {
  static const std::vector<std::pair<std::string, std::string>> files = {
${body}  };
  return files;
}

}  // namespace trtlens
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
