#include "ingest/bundle.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ingest/detect.h"

namespace trtlens {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBlock = 512;
constexpr size_t kMaxMembers = 10000;  // a capture has a dozen files; more means not a bundle

// Logs first, then the JSON that enriches their listings, then the rest.
int kind_rank(const std::string& kind) {
  static const char* const order[] = {"build-log",    "layer-json", "runtime-log",
                                      "profile-json", "times-json", "onnx"};
  for (int i = 0; i < 6; ++i)
    if (kind == order[i]) return i;
  return 6;
}

void warn(Assembler& out, const std::string& path, std::string message) {
  out.diagnostic(Severity::Warning, SourceLoc{path, 0}, std::move(message));
}

// Reads exactly n bytes unless the stream ends first; returns how many were read.
size_t read_full(InputStream& in, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    size_t k = in.read(buf + got, n - got);
    if (k == 0) break;
    got += k;
  }
  return got;
}

std::string field(const char* p, size_t n) { return std::string(p, strnlen(p, n)); }

// Octal number field, or GNU base-256 for sizes of 8 GiB and more.
bool parse_number(const char* p, size_t n, uint64_t& value) {
  value = 0;
  if (static_cast<unsigned char>(p[0]) & 0x80) {
    for (size_t i = 1; i < n; ++i) value = (value << 8) | static_cast<unsigned char>(p[i]);
    return true;
  }
  size_t i = 0;
  while (i < n && p[i] == ' ') ++i;
  bool any = false;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; ++i) {
    value = value * 8 + uint64_t(p[i] - '0');
    any = true;
  }
  return any || (i < n && (p[i] == '\0' || p[i] == ' '));
}

bool checksum_ok(const char* h) {
  uint64_t stored = 0;
  if (!parse_number(h + 148, 8, stored)) return false;
  uint64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i)
    sum += (i >= 148 && i < 156) ? uint64_t(' ') : static_cast<unsigned char>(h[i]);
  return sum == stored;
}

// Member names become paths under the extraction directory: nothing absolute, no "..".
bool safe_relative(const std::string& name, std::string& rel) {
  rel.clear();
  size_t i = 0;
  while (i < name.size()) {
    size_t j = name.find('/', i);
    if (j == std::string::npos) j = name.size();
    std::string part = name.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return false;
    if (!rel.empty()) rel += '/';
    rel += part;
  }
  return !name.empty() && name[0] != '/' && !rel.empty();
}

// "path=..." from a pax extended header ("LEN key=value\n" records).
std::string pax_path(const std::string& data) {
  size_t i = 0;
  while (i < data.size()) {
    size_t sp = data.find(' ', i);
    if (sp == std::string::npos) break;
    size_t len = std::strtoul(data.c_str() + i, nullptr, 10);
    if (len == 0 || i + len > data.size()) break;
    std::string rec = data.substr(sp + 1, i + len - sp - 1);
    if (!rec.empty() && rec.back() == '\n') rec.pop_back();
    if (rec.rfind("path=", 0) == 0) return rec.substr(5);
    i += len;
  }
  return "";
}

bool is_tar_head(std::string_view head) {
  return head.size() >= kBlock && head.substr(257, 5) == "ustar";
}

// Text that is plausibly TensorRT output (so that uname or nvidia-smi dumps are not ingested
// as logs when there is no manifest to say what they are).
bool looks_like_trt_text(std::string_view head) {
  for (const char* marker : {"[TRT]", "&&&&", "TensorRT", "Layer(", "] [I] ", "] [V] "})
    if (head.find(marker) != std::string_view::npos) return true;
  return false;
}

std::string join_shown(const std::string& prefix, const std::string& rel) { return prefix + rel; }

}  // namespace

bool bundle_kind_is_input(const std::string& kind) { return kind_rank(kind) < 6; }

bool extract_tar(InputStream& in, const std::string& dir, Assembler& out) {
  const std::string& path = in.path();
  char header[kBlock];
  std::vector<char> buf(size_t{1} << 16);
  std::string long_name;  // from a GNU 'L' or pax 'x' member, for the next header
  size_t members = 0;
  uint64_t offset = 0;
  try {
    for (;;) {
      size_t got = read_full(in, header, kBlock);
      if (got == 0) {
        warn(out, path, "archive ends without its end-of-archive blocks (cut short?)");
        return false;
      }
      if (got < kBlock) {
        warn(out, path, "archive is cut short inside a header at byte " + std::to_string(offset));
        return false;
      }
      if (std::all_of(header, header + kBlock, [](char c) { return c == 0; })) return true;
      if (!checksum_ok(header)) {
        warn(out, path, "damaged archive: bad header checksum at byte " + std::to_string(offset));
        return false;
      }
      offset += kBlock;
      if (++members > kMaxMembers) {
        warn(out, path,
             "more than " + std::to_string(kMaxMembers) + " members; the rest is ignored");
        return false;
      }
      std::string name = field(header, 100);
      if (std::memcmp(header + 257, "ustar", 5) == 0) {
        std::string prefix = field(header + 345, 155);
        if (!prefix.empty()) name = prefix + "/" + name;
      }
      if (!long_name.empty()) {
        name = long_name;
        long_name.clear();
      }
      uint64_t size = 0;
      if (!parse_number(header + 124, 12, size)) {
        warn(out, path, "damaged archive: bad size field for '" + name + "'");
        return false;
      }
      const char type = header[156];
      const uint64_t padded = (size + kBlock - 1) / kBlock * kBlock;

      if (type == 'L' || type == 'x') {  // the next member's name, then its header
        if (size > (1u << 20)) {
          warn(out, path, "damaged archive: oversized name record");
          return false;
        }
        std::string data(padded, '\0');
        if (read_full(in, data.data(), padded) < padded) {
          warn(out, path, "archive is cut short inside a name record");
          return false;
        }
        data.resize(size);
        long_name = type == 'L' ? field(data.data(), data.size()) : pax_path(data);
        offset += padded;
        continue;
      }

      std::string rel;
      const bool regular = type == '0' || type == '\0' || type == '7';
      std::ofstream file;
      if (regular && safe_relative(name, rel)) {
        fs::path target = fs::path(dir) / rel;
        std::error_code ec;
        fs::create_directories(target.parent_path(), ec);
        file.open(target, std::ios::binary);
        if (!file) warn(out, path, "cannot extract '" + name + "' to a temporary directory");
      } else if (regular) {
        warn(out, path, "member '" + name + "' has an unsafe path; skipped");
      }
      uint64_t left = padded;
      uint64_t data_left = size;
      while (left > 0) {
        size_t want = size_t(std::min<uint64_t>(left, buf.size()));
        size_t n = read_full(in, buf.data(), want);
        size_t keep = size_t(std::min<uint64_t>(n, data_left));
        if (file) file.write(buf.data(), std::streamsize(keep));
        data_left -= keep;
        left -= n;
        offset += n;
        if (n < want) {
          warn(out, path,
               "archive is cut short inside '" + name + "' (" + std::to_string(size - data_left) +
                   " of " + std::to_string(size) + " bytes)");
          return false;
        }
      }
    }
  } catch (const InputError& e) {
    warn(out, path, "damaged archive: " + e.reason());
    return false;
  }
}

std::unique_ptr<Bundle> Bundle::open(const std::string& path, const ReadLimits& limits,
                                     Assembler& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;  // the loader reports the real error
  std::unique_ptr<Bundle> b(new Bundle());
  b->path_ = path;
  if (S_ISDIR(st.st_mode)) {
    std::string prefix = path;
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    b->collect(path, prefix + "/", out);
    return b;
  }
  {
    auto in = InputStream::open(path, limits);
    if (!is_tar_head(in->peek(kBlock))) return nullptr;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/trtlens-bundle-XXXXXX";
  if (!::mkdtemp(templ.data())) throw InputError(path, "cannot create a temporary directory");
  b->temp_dir_ = templ;
  auto in = InputStream::open(path, limits);
  extract_tar(*in, b->temp_dir_, out);
  b->collect(b->temp_dir_, path + ":", out);
  return b;
}

Bundle::~Bundle() {
  if (temp_dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(temp_dir_, ec);
}

void Bundle::collect(const std::string& root_in, const std::string& shown_prefix, Assembler& out) {
  std::error_code ec;
  fs::path root(root_in);
  std::string prefix = shown_prefix;
  // An archive of a bundle directory holds that directory: look inside it.
  if (!fs::exists(root / "manifest.json", ec)) {
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(root, ec)) entries.push_back(e.path());
    if (entries.size() == 1 && fs::is_directory(entries[0], ec) &&
        !fs::is_symlink(entries[0], ec)) {
      prefix += entries[0].filename().string() + "/";
      root = entries[0];
    }
  }

  const fs::path manifest = root / "manifest.json";
  bool from_manifest = false;
  if (fs::is_regular_file(manifest, ec)) {
    std::ifstream f(manifest, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto j = nlohmann::json::parse(text, nullptr, false);
    const std::string mshown = join_shown(prefix, "manifest.json");
    if (j.is_discarded() || !j.is_object() || !j.contains("files") || !j["files"].is_array()) {
      warn(out, mshown, "not a bundle manifest (no \"files\" list); reading the files by content");
    } else {
      from_manifest = true;
      // value() would throw on a non-string status: read it by hand.
      const std::string status =
          j.contains("status") && j["status"].is_string() ? j["status"].get<std::string>() : "ok";
      // What the capture says of itself: the store files captures by these.
      for (const char* key : {"name", "model", "target", "trt_version", "start"}) {
        if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
          continue;
        std::string v = j[key].get<std::string>();
        if (std::string_view(key) == "model") {
          v = fs::path(v).filename().string();
          if (size_t dot = v.find('.'); dot != std::string::npos && dot > 0) v.resize(dot);
        }
        out.label(std::string_view(key) == "start" ? "date" : key, v);
      }
      if (status != "ok")
        warn(out, mshown,
             "the capture did not finish (status \"" + status + "\"): its logs may be partial");
      if (j.contains("runs") && j["runs"].is_array())
        for (const auto& r : j["runs"])
          if (r.is_object() && r.contains("exit_code") && r["exit_code"].is_number_integer() &&
              r["exit_code"].get<int64_t>() != 0)
            warn(out, mshown,
                 "trtexec " +
                     (r.contains("role") && r["role"].is_string() ? r["role"].get<std::string>()
                                                                  : std::string("run")) +
                     " run exited with code " + std::to_string(r["exit_code"].get<int64_t>()));
      for (const auto& e : j["files"]) {
        if (!e.is_object() || !e.contains("path") || !e["path"].is_string()) {
          warn(out, mshown, "a \"files\" entry without a path; ignored");
          continue;
        }
        const std::string name = e["path"].get<std::string>();
        const std::string kind =
            e.contains("kind") && e["kind"].is_string() ? e["kind"].get<std::string>() : "";
        std::string rel;
        if (!safe_relative(name, rel)) {
          warn(out, mshown, "unsafe path '" + name + "' in the file list; ignored");
          continue;
        }
        if (!bundle_kind_is_input(kind)) continue;
        const fs::path p = root / rel;
        const std::string shown = join_shown(prefix, rel);
        if (!fs::is_regular_file(p, ec)) {
          warn(out, shown, "listed in manifest.json but missing (partial copy?)");
          continue;
        }
        if (e.contains("size") && e["size"].is_number_unsigned()) {
          uint64_t want = e["size"].get<uint64_t>(), have = fs::file_size(p, ec);
          if (!ec && want != have)
            warn(out, shown,
                 "is " + std::to_string(have) + " bytes but manifest.json says " +
                     std::to_string(want) + " (cut short or changed)");
        }
        files_.push_back(BundleFile{shown, p.string(), kind});
      }
    }
  }

  if (!from_manifest) {
    std::vector<std::string> rels;
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
      std::string rel = fs::relative(it->path(), root, ec).generic_string();
      if (ec || rel == "manifest.json") continue;
      rels.push_back(rel);
      if (rels.size() > kMaxMembers) break;
    }
    std::sort(rels.begin(), rels.end());
    for (const auto& rel : rels) {
      const fs::path p = root / rel;
      InputKind kind;
      try {
        auto in = InputStream::open(p.string());
        std::string_view head = in->peek(8192);
        kind = detect_kind(head);
        if (kind == InputKind::BuildLog && !looks_like_trt_text(head)) continue;
      } catch (const InputError& e) {
        warn(out, join_shown(prefix, rel), e.reason() + "; skipped");
        continue;
      }
      if (kind == InputKind::Empty || kind == InputKind::Binary || kind == InputKind::OtherJson)
        continue;
      files_.push_back(BundleFile{join_shown(prefix, rel), p.string(), to_string(kind)});
    }
  }
  std::stable_sort(files_.begin(), files_.end(), [](const BundleFile& a, const BundleFile& b) {
    return kind_rank(a.kind) < kind_rank(b.kind);
  });
}

}  // namespace trtlens
