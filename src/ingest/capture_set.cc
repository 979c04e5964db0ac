#include "ingest/capture_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "ingest/detect.h"

namespace trtlens {
namespace fs = std::filesystem;
namespace {

// Bounds on what one capture directory may hold (a capture has a handful of files).
constexpr size_t kMaxFiles = 10000;
constexpr int kMaxDepth = 4;

bool is_archive(const std::string& path, const ReadLimits& limits) {
  try {
    auto in = InputStream::open(path, limits);
    std::string_view head = in->peek(512);
    if (head.size() >= 262 && head.substr(257, 5) == "ustar") return true;  // tar (gzip decoded)
  } catch (const InputError&) {
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  char magic[4] = {};
  f.read(magic, 4);
  return (magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) ||
         (uint8_t(magic[0]) == 0x28 && uint8_t(magic[1]) == 0xb5 && uint8_t(magic[2]) == 0x2f &&
          uint8_t(magic[3]) == 0xfd);
}

bool is_trt_file(const fs::path& p, const ReadLimits& limits) {
  try {
    auto in = InputStream::open(p.string(), limits);
    InputKind k = detect_kind(in->peek(8192));
    return k != InputKind::Empty && k != InputKind::Binary && k != InputKind::OtherJson;
  } catch (const InputError&) {
    return false;
  }
}

// A directory is one capture when it has a manifest or TensorRT output at its top.
bool is_bundle_dir(const fs::path& dir, const ReadLimits& limits) {
  std::error_code ec;
  if (fs::is_regular_file(dir / "manifest.json", ec)) return true;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && !e.is_symlink(ec) && is_trt_file(e.path(), limits)) return true;
  return false;
}

void add_files(const fs::path& root, std::vector<DigestMember>& out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it.depth() > kMaxDepth) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    out.push_back({fs::relative(it->path(), root, ec).generic_string(), it->path().string()});
    if (out.size() > kMaxFiles)
      throw InputError(root.string(), "more than " + std::to_string(kMaxFiles) +
                                          " files: not a capture bundle");
  }
  std::sort(out.begin(), out.end(),
            [](const DigestMember& a, const DigestMember& b) { return a.name < b.name; });
}

CaptureInputs one(const fs::path& p) {
  CaptureInputs c;
  c.paths = {p.string()};
  c.shown = p.string();
  std::error_code ec;
  if (fs::is_directory(p, ec))
    add_files(p, c.members);
  else
    c.members.push_back({p.filename().string(), p.string()});
  return c;
}

}  // namespace

std::vector<CaptureInputs> group_captures(const std::vector<std::string>& inputs,
                                          const ReadLimits& limits) {
  std::vector<CaptureInputs> out;
  CaptureInputs loose;
  for (const auto& input : inputs) {
    std::error_code ec;
    fs::path p(input);
    if (input == "-") throw InputError(input, "db add reads files, not stdin");
    if (!fs::exists(p, ec)) throw InputError(input, "no such file or directory");
    if (fs::is_directory(p, ec)) {
      if (is_bundle_dir(p, limits)) {
        out.push_back(one(p));
        continue;
      }
      // A directory of captures: each bundle directory or archive in it, one level down.
      std::vector<fs::path> children;
      for (const auto& e : fs::directory_iterator(p, ec)) children.push_back(e.path());
      std::sort(children.begin(), children.end());
      size_t found = 0;
      for (const auto& child : children) {
        if (fs::is_symlink(child, ec)) continue;
        if ((fs::is_directory(child, ec) && is_bundle_dir(child, limits)) ||
            (fs::is_regular_file(child, ec) && is_archive(child.string(), limits))) {
          out.push_back(one(child));
          ++found;
        }
      }
      if (!found)
        throw InputError(input,
                         "holds no capture (no manifest.json or TensorRT output at its top, and "
                         "no bundle directories or archives inside)");
      continue;
    }
    if (is_archive(input, limits)) {
      out.push_back(one(p));
      continue;
    }
    loose.paths.push_back(input);
    loose.shown += (loose.shown.empty() ? "" : " + ") + input;
    loose.members.push_back({p.filename().string(), input});
  }
  if (!loose.paths.empty()) {
    std::sort(loose.members.begin(), loose.members.end(),
              [](const DigestMember& a, const DigestMember& b) { return a.name < b.name; });
    out.push_back(std::move(loose));
  }
  return out;
}

}  // namespace trtlens
