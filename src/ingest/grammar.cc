#include "ingest/grammar.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace trtlens {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

RE2::Options pattern_options() {
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_encoding(RE2::Options::EncodingLatin1);  // bytes: names need not be UTF-8
  return opts;
}

// The literal text an anchored pattern must start with, and the range of its first byte, from
// RE2's own analysis.
void analyse_start(GrammarPattern& p) {
  const RE2& re = p.re();
  if (re.pattern().empty() || re.pattern()[0] != '^') return;
  std::string min, max;
  if (!re.PossibleMatchRange(&min, &max, 16)) return;
  size_t n = 0;
  while (n < min.size() && n < max.size() && min[n] == max[n]) ++n;
  p.literal_prefix = min.substr(0, n);
  if (!min.empty() && !max.empty()) {
    p.first_min = static_cast<unsigned char>(min[0]);
    p.first_max = static_cast<unsigned char>(max[0]);
  }
}

std::vector<std::string> split_alternatives(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t bar = text.find(" || ", pos);
    std::string item = text.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
    if (!item.empty()) out.push_back(item);
    if (bar == std::string::npos) break;
    pos = bar + 4;
  }
  return out;
}

}  // namespace

void Grammar::add_file(const std::string& file, const std::string& text) {
  // A file given again (an override) replaces every pattern the earlier one defined.
  patterns_.erase(std::remove_if(patterns_.begin(), patterns_.end(),
                                 [&](const auto& p) { return p->file == file; }),
                  patterns_.end());
  bool builtin = false;
  for (const auto& [name, embedded] : embedded_grammar_files())
    if (name == file && embedded == text) builtin = true;
  std::istringstream in(text);
  std::string raw, example, versions, contains, starts;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string line = trim(raw);
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string body = trim(line.substr(1));
      if (body.rfind("example:", 0) == 0) {
        // Only the one space after the colon goes: examples may start with blanks.
        example = body.substr(8);
        if (!example.empty() && example[0] == ' ') example.erase(0, 1);
      }
      else if (body.rfind("versions:", 0) == 0) versions = trim(body.substr(9));
      else if (body.rfind("contains:", 0) == 0) contains = trim(body.substr(9));
      else if (body.rfind("starts:", 0) == 0) starts = trim(body.substr(7));
      continue;
    }
    auto eq = line.find(" = ");
    if (eq == std::string::npos)
      throw GrammarError(file + ":" + std::to_string(line_no) + ": expected 'name = pattern'");
    auto p = std::make_unique<GrammarPattern>();
    p->name = trim(line.substr(0, eq));
    p->regex = trim(raw.substr(raw.find(" = ") + 3));
    while (!p->regex.empty() && (p->regex.back() == '\r' || p->regex.back() == '\n'))
      p->regex.pop_back();
    p->file = file;
    p->line = line_no;
    p->example = example;
    p->versions = versions;
    p->contains = split_alternatives(contains);
    p->starts = split_alternatives(starts);
    p->builtin = builtin;
    example.clear();
    versions.clear();
    contains.clear();
    starts.clear();
    patterns_.push_back(std::move(p));
  }
}

const RE2& GrammarPattern::re() const {
  std::call_once(compile_once_,
                 [this] { compiled_ = std::make_unique<RE2>(regex, pattern_options()); });
  if (!compiled_->ok())
    throw GrammarError(file + ":" + std::to_string(line) + ": pattern '" + name +
                       "': " + compiled_->error());
  return *compiled_;
}

// The patterns whose start analysis the build did not provide (those of --grammar-dir files)
// compile here, on two threads: RE2's compile and its prefix analysis are independent per
// pattern. The first bad pattern in file order is reported.
void Grammar::compile() {
  std::vector<GrammarPattern*> todo;
  for (auto& p : patterns_)
    if (!p->analysed_) todo.push_back(p.get());
  if (todo.empty()) return;
  std::exception_ptr failed[2];
  auto work = [&](size_t half) {
    try {
      for (size_t i = half; i < todo.size(); i += 2) {
        try {
          analyse_start(*todo[i]);
        } catch (const GrammarError&) {  // reported below, in file order
        }
        todo[i]->analysed_ = true;
      }
    } catch (...) {
      failed[half] = std::current_exception();
    }
  };
  {
    std::thread other(work, 1);
    work(0);
    other.join();
  }
  for (const auto& f : failed)
    if (f) std::rethrow_exception(f);
  for (const GrammarPattern* p : todo) p->re();  // throws for the first bad one
}

std::shared_ptr<const Grammar> Grammar::from_files(
    const std::vector<std::pair<std::string, std::string>>& files) {
  auto g = std::make_shared<Grammar>();
  for (const auto& [name, text] : files) g->add_file(name, text);
  for (const auto& p : g->patterns_) {
    if (!g->by_name_.emplace(p->name, p.get()).second)
      throw GrammarError(p->file + ":" + std::to_string(p->line) + ": pattern '" + p->name +
                         "' is defined twice");
  }
  // Built-in patterns take their start analysis from the build: no compile at start-up.
  for (const GrammarStart& s : embedded_grammar_starts()) {
    auto it = g->by_name_.find(std::string_view(s.name));
    if (it == g->by_name_.end()) continue;
    GrammarPattern& p = *it->second;
    if (!p.builtin || p.regex != s.regex) continue;
    p.literal_prefix.assign(s.prefix, s.prefix_size);
    p.first_min = s.first_min;
    p.first_max = s.first_max;
    p.analysed_ = true;
  }
  return g;
}

std::shared_ptr<const Grammar> Grammar::load(const std::string& override_dir) {
  auto files = embedded_grammar_files();
  if (!override_dir.empty()) {
    DIR* dir = opendir(override_dir.c_str());
    if (!dir) throw GrammarError(override_dir + ": cannot open grammar directory");
    std::vector<std::string> names;
    while (dirent* e = readdir(dir)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".re2") == 0) names.push_back(n);
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      std::ifstream f(override_dir + "/" + n, std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      auto it = std::find_if(files.begin(), files.end(), [&](auto& x) { return x.first == n; });
      if (it != files.end()) it->second = ss.str();
      else files.emplace_back(n, ss.str());
    }
  }
  return from_files(files);
}

void Grammar::compiled() const {
  std::call_once(compile_once_, [this] {
    try {
      const_cast<Grammar*>(this)->compile();
    } catch (...) {
      compile_error_ = std::current_exception();
    }
  });
  if (compile_error_) std::rethrow_exception(compile_error_);
}

const GrammarPattern& Grammar::pattern(std::string_view name) const {
  compiled();
  auto it = by_name_.find(name);
  if (it == by_name_.end())
    throw GrammarError("grammar has no pattern '" + std::string(name) + "'");
  return *it->second;
}

const RE2& Grammar::re(std::string_view name) const { return pattern(name).re(); }

bool Grammar::has(std::string_view name) const { return by_name_.count(name) > 0; }

}  // namespace trtlens
