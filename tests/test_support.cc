#include "test_support.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "ingest/grammar.h"
#include "ingest/load.h"
#include "render/json.h"

namespace trtlens::test {

std::string source_dir() { return TRTLENS_SOURCE_DIR; }

std::string fixture(const std::string& name) { return source_dir() + "/fixtures/" + name; }

std::string shared_dir() {
  std::string d = source_dir() + "/../shared";
  struct stat st {};
  if (::stat((d + "/seeds").c_str(), &st) != 0) return "";
  return d;
}

std::string gzip_bytes(const std::string& text) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, uLong(text.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = uInt(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string whole_json(const Capture& c) {
  std::vector<const Build*> all;
  for (const auto& b : c.builds) all.push_back(&b);
  return dump_json(capture_json(c, all));
}

Capture load(const std::vector<std::string>& paths) {
  auto g = Grammar::load();
  return load_capture(paths, *g);
}

Tensor tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> dims) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.has_dims = true;
  return t;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

RunResult run_trtlens(const std::string& args, const std::string& stdin_path) {
  char out_tmpl[] = "/tmp/trtlens-out-XXXXXX";
  char err_tmpl[] = "/tmp/trtlens-err-XXXXXX";
  int ofd = mkstemp(out_tmpl), efd = mkstemp(err_tmpl);
  close(ofd);
  close(efd);
  std::string cmd = shell_quote(TRTLENS_BINARY) + " " + args + " >" + out_tmpl + " 2>" + err_tmpl;
  cmd += stdin_path.empty() ? " </dev/null" : " <" + shell_quote(stdin_path);
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_tmpl);
  r.err = read_file(err_tmpl);
  std::remove(out_tmpl);
  std::remove(err_tmpl);
  return r;
}

}  // namespace trtlens::test
