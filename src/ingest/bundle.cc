#include "ingest/bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "ingest/detect.h"
#include "io/library.h"

namespace trtlens {

struct Bundle::Entry {
  std::string rel;                            // '/'-separated path inside the bundle
  std::string disk;                           // directory bundles: where it is
  std::shared_ptr<const MemberBytes> member;  // archives: its bytes
  uint64_t size = 0;
};

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxMembers = 10000;  // a capture has a dozen files; more means not a bundle
constexpr int kMaxDepth = 4;           // directories below a bundle directory that are searched

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

// Member names become paths inside the bundle: nothing absolute, no "..".
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

// Text that is plausibly TensorRT output (so that uname or nvidia-smi dumps are not ingested
// as logs when there is no manifest to say what they are).
bool looks_like_trt_text(std::string_view head) {
  for (const char* marker : {"[TRT]", "&&&&", "TensorRT", "Layer(", "] [I] ", "] [V] "})
    if (head.find(marker) != std::string_view::npos) return true;
  return false;
}

// An archive libarchive can read: tar (also inside gzip, as InputStream decodes it), zip, or
// a compressor only libarchive decodes (zstd, xz, bzip2), whatever is inside.
bool looks_like_archive(std::string_view decoded, std::string_view raw) {
  if (decoded.size() >= 262 && decoded.substr(257, 5) == "ustar") return true;
  for (std::string_view magic :
       {std::string_view("PK\x03\x04", 4), std::string_view("PK\x05\x06", 4),
        std::string_view("\x28\xb5\x2f\xfd", 4),
        std::string_view("\xfd"
                         "7zXZ\0",
                         6),
        std::string_view("BZh", 3)})
    if (raw.substr(0, magic.size()) == magic) return true;
  return false;
}

const char* type_name(mode_t type) {
  switch (type) {
    case AE_IFLNK:
      return "a symbolic link";
    case AE_IFCHR:
      return "a character device";
    case AE_IFBLK:
      return "a block device";
    case AE_IFIFO:
      return "a FIFO";
    case AE_IFSOCK:
      return "a socket";
    default:
      return "not a regular file";
  }
}

// libarchive is opened when the first archive is read (see io/library.h): linked, it and what
// it pulls in (libxml2, ICU, four compressors) took 0.7 ms of every run's start-up.
// clang-format off
#define TRTLENS_LIBARCHIVE_FUNCTIONS(X)                                              \
  X(read_new) X(read_free) X(read_open) X(read_next_header) X(read_data)             \
  X(read_support_filter_all) X(read_support_format_tar)                              \
  X(read_support_format_gnutar) X(read_support_format_zip) X(error_string)           \
  X(entry_pathname) X(entry_filetype) X(entry_hardlink) X(entry_size_is_set)         \
  X(entry_size)
// clang-format on

struct Libarchive {
#define X(f) decltype(&archive_##f) f = nullptr;
  TRTLENS_LIBARCHIVE_FUNCTIONS(X)
#undef X
  // Its declared type carries a printf attribute, which a template argument would drop.
  void (*set_error)(archive*, int, const char*, ...) = nullptr;
  std::string missing;  // why it cannot be used, when it cannot
};

const Libarchive& libarchive(const std::string& path) {
  static const Libarchive la = [] {
    static Library lib(TRTLENS_LIBARCHIVE_SONAME);
    Libarchive l;
#define X(f) \
  if (!lib.get(l.f, "archive_" #f) && l.missing.empty()) l.missing = lib.error();
    TRTLENS_LIBARCHIVE_FUNCTIONS(X)
    X(set_error)
#undef X
    return l;
  }();
  if (!la.missing.empty())
    throw InputError(
        path, "reading an archive needs libarchive (" TRTLENS_LIBARCHIVE_SONAME "): " + la.missing);
  return la;
}

std::string archive_reason(const Libarchive& la, archive* a) {
  const char* e = la.error_string(a);
  return e ? e : "unknown error";
}

// libarchive reads through InputStream: gzip is decoded there, which keeps what a cut .tar.gz
// delivered (libarchive's own gzip filter gives up on the whole stream), and errors stay C++.
struct StreamSource {
  const Libarchive* la = nullptr;
  InputStream* in = nullptr;
  std::vector<char> buf = std::vector<char>(size_t{1} << 16);
  std::exception_ptr error;
  static la_ssize_t read(archive* a, void* self, const void** out) {
    auto* s = static_cast<StreamSource*>(self);
    try {
      size_t n = s->in->read(s->buf.data(), s->buf.size());
      *out = s->buf.data();
      return la_ssize_t(n);
    } catch (...) {
      s->error = std::current_exception();
      s->la->set_error(a, EIO, "read failed");
      return -1;
    }
  }
};

// Reads every regular member into memory. Damage ends the reading with a diagnostic (what was
// read stays); members skipped for safety get one diagnostic each; going over the limit throws.
std::vector<Bundle::Entry> read_archive(const std::string& path, InputStream& in,
                                        const ReadLimits& limits, Assembler& out, size_t& skipped,
                                        std::string& damage) {
  const Libarchive& la = libarchive(path);
  std::unique_ptr<archive, decltype(la.read_free)> a(la.read_new(), la.read_free);
  la.read_support_filter_all(a.get());
  la.read_support_format_tar(a.get());
  la.read_support_format_gnutar(a.get());
  la.read_support_format_zip(a.get());
  std::vector<Bundle::Entry> entries;
  auto damaged = [&](const std::string& why) {
    damage = "damaged archive: " + why;
    warn(out, path, damage);
  };
  StreamSource source;
  source.la = &la;
  source.in = &in;
  auto rethrow = [&] {
    if (source.error) std::rethrow_exception(source.error);
  };
  if (la.read_open(a.get(), &source, nullptr, &StreamSource::read, nullptr) != ARCHIVE_OK) {
    rethrow();
    damaged(archive_reason(la, a.get()));
    return entries;
  }
  uint64_t total = 0;
  std::vector<char> buf(size_t{1} << 16);
  for (size_t members = 0;; ++members) {
    archive_entry* e = nullptr;
    int r = la.read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r == ARCHIVE_RETRY) continue;
    if (r < ARCHIVE_WARN) {
      rethrow();
      damaged(archive_reason(la, a.get()));
      break;
    }
    if (members >= kMaxMembers) {
      warn(out, path, "more than " + std::to_string(kMaxMembers) + " members; the rest is ignored");
      break;
    }
    const char* raw_name = la.entry_pathname(e);
    const std::string name = raw_name ? raw_name : "";
    const mode_t type = la.entry_filetype(e);
    if (type == AE_IFDIR) continue;
    std::string rel;
    std::string why;
    if (la.entry_hardlink(e))
      why = "is a hard link";
    else if (type != AE_IFREG)
      why = std::string("is ") + type_name(type);
    else if (!safe_relative(name, rel))
      why = "has an unsafe path";
    if (!why.empty()) {
      warn(out, path, "member '" + name + "' " + why + "; skipped");
      ++skipped;
      continue;
    }
    int mfd = ::memfd_create("trtlens-member", MFD_CLOEXEC);
    if (mfd < 0)
      throw InputError(path,
                       std::string("cannot hold a member in memory: ") + std::strerror(errno));
    auto member = std::make_shared<MemberBytes>(mfd);
    const int64_t want = la.entry_size_is_set(e) ? la.entry_size(e) : -1;
    uint64_t got = 0;
    bool cut = false;
    for (;;) {
      la_ssize_t n = la.read_data(a.get(), buf.data(), buf.size());
      if (n == 0) break;
      if (n < 0) {
        rethrow();
        cut = true;
        break;
      }
      total += uint64_t(n);
      if (total > limits.max_input_bytes)
        throw InputError(path, "archive decodes to more than " +
                                   std::to_string(limits.max_input_bytes) +
                                   " bytes (raise --max-input-size)");
      for (size_t off = 0; off < size_t(n);) {
        ssize_t w = ::write(mfd, buf.data() + off, size_t(n) - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
          throw InputError(path,
                           std::string("cannot hold a member in memory: ") + std::strerror(errno));
        off += size_t(w);
      }
      got += uint64_t(n);
    }
    member->size = got;
    entries.push_back(Bundle::Entry{rel, "", member, got});
    if (cut || (want >= 0 && got < uint64_t(want))) {
      damage = "archive is cut short inside '" + name + "' (" + std::to_string(got) + " of " +
               (want >= 0 ? std::to_string(want) : std::string("?")) + " bytes)";
      warn(out, path, damage + ": " + archive_reason(la, a.get()));
      break;
    }
  }
  return entries;
}

// A bundle directory's regular files, depth and count bounded; links leading out of it,
// devices, FIFOs and sockets are skipped, each with a diagnostic.
std::vector<Bundle::Entry> read_directory(const std::string& path, const std::string& prefix,
                                          Assembler& out, size_t& skipped) {
  std::vector<Bundle::Entry> entries;
  std::error_code ec;
  const fs::path root = fs::canonical(path, ec);
  if (ec) throw InputError(path, ec.message());
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw InputError(path, ec.message());
  size_t seen = 0;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    const std::string rel = p.lexically_relative(root).generic_string();
    if (++seen > kMaxMembers) {
      warn(out, path,
           "more than " + std::to_string(kMaxMembers) +
               " entries: not a capture bundle; the rest is ignored");
      break;
    }
    std::error_code e2;
    const fs::file_status link = it->symlink_status(e2);
    if (fs::is_directory(link)) {
      if (it.depth() >= kMaxDepth) {
        warn(out, prefix + rel,
             "deeper than " + std::to_string(kMaxDepth) +
                 " directories below the bundle; not searched");
        it.disable_recursion_pending();
      }
      continue;
    }
    fs::path target = p;
    if (fs::is_symlink(link)) {
      target = fs::canonical(p, e2);
      const std::string t = target.generic_string(), r = root.generic_string() + "/";
      if (e2 || t.compare(0, r.size(), r) != 0) {
        warn(out, prefix + rel, "is a symbolic link leading out of the bundle; skipped");
        ++skipped;
        continue;
      }
    }
    const fs::file_status st = fs::status(target, e2);
    if (!fs::is_regular_file(st)) {
      std::string what = fs::is_fifo(st)             ? "a FIFO"
                         : fs::is_character_file(st) ? "a character device"
                         : fs::is_block_file(st)     ? "a block device"
                         : fs::is_socket(st)         ? "a socket"
                         : fs::is_directory(st)      ? "a link to a directory"
                                                     : "not a regular file";
      warn(out, prefix + rel, "is " + what + "; skipped");
      ++skipped;
      continue;
    }
    entries.push_back(Bundle::Entry{rel, target.string(), nullptr, fs::file_size(target, e2)});
  }
  return entries;
}

std::string read_small(const Bundle::Entry& e, const ReadLimits& limits) {
  BundleFile f{e.rel, e.disk, "", e.member};
  return open_member(f, limits)->read_all();
}

}  // namespace

MemberBytes::~MemberBytes() {
  if (fd >= 0) ::close(fd);
}

std::unique_ptr<InputStream> open_member(const BundleFile& f, const ReadLimits& limits) {
  if (!f.member) return InputStream::open(f.open, limits);
  int fd = ::dup(f.member->fd);
  if (fd < 0) throw InputError(f.shown, std::strerror(errno));
  return InputStream::open_fd(f.shown, fd, limits);
}

bool bundle_kind_is_input(const std::string& kind) { return kind_rank(kind) < 6; }

std::unique_ptr<Bundle> Bundle::open(const std::string& path, const ReadLimits& limits,
                                     Assembler& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;  // the loader reports the real error
  std::unique_ptr<Bundle> b(new Bundle());
  b->path_ = path;
  size_t skipped = 0;
  std::string damage;
  std::vector<Entry> entries;
  std::string prefix;
  if (S_ISDIR(st.st_mode)) {
    prefix = path;
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    prefix += "/";
    entries = read_directory(path, prefix, out, skipped);
  } else {
    // FIFOs and other streams are read once, as they come: never sniffed here.
    if (!S_ISREG(st.st_mode)) return nullptr;
    {
      auto in = InputStream::open(path, limits);
      in->keep_cut_gzip();
      std::string raw;
      {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
          raw.resize(8);
          ssize_t n = ::read(fd, raw.data(), raw.size());
          raw.resize(n > 0 ? size_t(n) : 0);
          ::close(fd);
        }
      }
      if (!looks_like_archive(in->peek(512), raw)) return nullptr;
    }
    auto in = InputStream::open(path, limits);
    in->keep_cut_gzip();
    entries = read_archive(path, *in, limits, out, skipped, damage);
    if (in->cut_short()) {
      damage = "damaged archive: truncated gzip stream";
      warn(out, path, damage + "; read the members that arrived");
    }
    prefix = path + ":";
  }
  b->collect(std::move(entries), prefix, S_ISDIR(st.st_mode), limits, out);
  if (b->files_.empty()) {
    if (skipped > 0)
      b->empty_reason_ = "all of its " + std::to_string(skipped) +
                         " member(s) that could be inputs were skipped for safety";
    if (!damage.empty()) b->empty_reason_ += (b->empty_reason_.empty() ? "" : "; ") + damage;
  }
  return b;
}

void Bundle::collect(std::vector<Entry> entries, const std::string& shown_prefix, bool directory,
                     const ReadLimits& limits, Assembler& out) {
  std::string prefix = shown_prefix;
  auto find = [&](const std::string& rel) -> const Entry* {
    for (const auto& e : entries)
      if (e.rel == rel) return &e;
    return nullptr;
  };
  // An archive or copy of a bundle directory holds that directory: look inside it.
  if (!find("manifest.json") && !entries.empty()) {
    const std::string first = entries[0].rel.substr(0, entries[0].rel.find('/'));
    bool one_dir = first != entries[0].rel;
    for (const auto& e : entries)
      if (e.rel.compare(0, first.size() + 1, first + "/") != 0) one_dir = false;
    if (one_dir) {
      prefix += first + "/";
      for (auto& e : entries) e.rel = e.rel.substr(first.size() + 1);
    }
  }
  std::map<std::string, const Entry*> by_rel;
  for (const auto& e : entries) by_rel[e.rel] = &e;

  bool from_manifest = false;
  if (const Entry* m = find("manifest.json")) {
    const std::string mshown = prefix + "manifest.json";
    nlohmann::json j = nlohmann::json::parse(read_small(*m, limits), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("files") || !j["files"].is_array()) {
      warn(out, mshown,
           j.is_object() && j.contains("files")
               ? "\"files\" is not a list; reading the files by content"
               : "not a bundle manifest (no \"files\" list); reading the files by content");
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
          warn(out, mshown, "a \"files\" entry without a path (a string); ignored");
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
        const std::string shown = prefix + rel;
        auto it = by_rel.find(rel);
        if (it == by_rel.end()) {
          warn(out, shown, "listed in manifest.json but missing or skipped (partial copy?)");
          continue;
        }
        if (e.contains("size") && e["size"].is_number_unsigned()) {
          uint64_t want = e["size"].get<uint64_t>(), have = it->second->size;
          if (want != have)
            warn(out, shown,
                 "is " + std::to_string(have) + " bytes but manifest.json says " +
                     std::to_string(want) + " (cut short or changed)");
        }
        files_.push_back(BundleFile{shown, it->second->disk, kind, it->second->member});
      }
    }
  }

  if (!from_manifest) {
    bool trt_at_top = false;
    std::vector<BundleFile> found;
    std::vector<const Entry*> sorted;
    for (const auto& [rel, e] : by_rel)
      if (rel != "manifest.json") sorted.push_back(e);
    for (const Entry* e : sorted) {
      BundleFile f{prefix + e->rel, e->disk, "", e->member};
      InputKind kind;
      try {
        auto in = open_member(f, limits);
        std::string_view head = in->peek(8192);
        kind = detect_kind(head);
        const std::string& r = e->rel;
        if (kind != InputKind::Onnx && r.size() > 5 && r.compare(r.size() - 5, 5, ".onnx") == 0) {
          warn(out, f.shown,
               std::string("named as an ONNX model but is not one (not protobuf: ") +
                   to_string(kind) + "); skipped");
          continue;
        }
        if (kind == InputKind::BuildLog && !looks_like_trt_text(head)) continue;
      } catch (const InputError& err) {
        warn(out, f.shown, err.reason() + "; skipped");
        continue;
      }
      if (kind == InputKind::Empty || kind == InputKind::Binary || kind == InputKind::OtherJson)
        continue;
      f.kind = to_string(kind);
      if (e->rel.find('/') == std::string::npos) trt_at_top = true;
      found.push_back(std::move(f));
    }
    // A directory of other things (a home or temp directory, a build tree) is not crawled for
    // logs: a capture bundle has a manifest or TensorRT output at its top.
    if (directory && !found.empty() && !trt_at_top)
      throw InputError(path_,
                       "not a capture bundle: no manifest.json and no TensorRT output files at "
                       "its top (pass the files themselves)");
    files_ = std::move(found);
  }
  std::stable_sort(files_.begin(), files_.end(), [](const BundleFile& a, const BundleFile& b) {
    return kind_rank(a.kind) < kind_rank(b.kind);
  });
}

}  // namespace trtlens
