// A capture bundle (what tools/trtlens-capture writes): a directory, or an archive of one
// (.tar, .tar.gz, .tar.zst, .tar.xz, .zip). The bundle expands into its member files, which the
// loader then ingests one by one. Archive members are read with libarchive into anonymous
// in-memory files: nothing is written to disk, and the decoded total is bounded by
// --max-input-size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

// An archive member's bytes, in an anonymous in-memory file (closed with the last owner).
struct MemberBytes {
  explicit MemberBytes(int f) : fd(f) {}
  ~MemberBytes();
  MemberBytes(const MemberBytes&) = delete;
  MemberBytes& operator=(const MemberBytes&) = delete;
  int fd;
  uint64_t size = 0;
};

struct BundleFile {
  std::string shown;  // name in diagnostics: "bundle/build.log" or "bundle.tar.gz:build.log"
  std::string open;   // where it is on disk (directory bundles); "" for archive members
  std::string kind;   // manifest kind ("build-log", "layer-json", ...); "" when sniffed
  std::shared_ptr<const MemberBytes> member;  // archive members: their bytes
};

// Opens a bundle member for reading, from disk or from memory.
std::unique_ptr<InputStream> open_member(const BundleFile& f, const ReadLimits& limits);

class Bundle {
 public:
  // Null when `path` is neither a directory nor an archive. Problems inside the bundle (a bad
  // manifest, missing, cut-short or skipped members, a damaged archive) become diagnostics in
  // `out`; an unreadable path, an archive decoding to more than --max-input-size, or a
  // directory that is not a capture bundle throws InputError.
  static std::unique_ptr<Bundle> open(const std::string& path, const ReadLimits& limits,
                                      Assembler& out);

  // The members to ingest, in a useful order (logs before the JSON that enriches them).
  const std::vector<BundleFile>& files() const { return files_; }
  const std::string& path() const { return path_; }
  // Why the bundle has no files (members skipped for safety, a damaged archive), or "".
  const std::string& empty_reason() const { return empty_reason_; }

  struct Entry;  // a regular member found in the directory or archive

 private:
  Bundle() = default;
  void collect(std::vector<Entry> entries, const std::string& shown_prefix, bool directory,
               const ReadLimits& limits, Assembler& out);

  std::string path_;
  std::vector<BundleFile> files_;
  std::string empty_reason_;
};

// Kinds the manifest marks that the loader should not ingest (environment, engine).
bool bundle_kind_is_input(const std::string& kind);

}  // namespace trtlens
