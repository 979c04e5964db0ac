// A capture bundle (what tools/trtlens-capture writes): a directory, or a .tar / .tar.gz of
// one. The bundle expands into its member files, which the loader then ingests one by one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/input.h"
#include "model/assembler.h"

namespace trtlens {

struct BundleFile {
  std::string shown;  // name in diagnostics: "bundle/build.log" or "bundle.tar.gz:build.log"
  std::string open;   // where it is on disk (archives are extracted to a private directory)
  std::string kind;   // manifest kind ("build-log", "layer-json", ...); "" when sniffed
};

class Bundle {
 public:
  // Null when `path` is neither a directory nor a tar archive (plain or gzip). Problems inside
  // the bundle (a bad manifest, missing or cut-short files, a damaged archive) become
  // diagnostics in `out`; an unreadable path throws InputError.
  static std::unique_ptr<Bundle> open(const std::string& path, const ReadLimits& limits,
                                      Assembler& out);
  ~Bundle();  // removes the extracted files
  Bundle(const Bundle&) = delete;
  Bundle& operator=(const Bundle&) = delete;

  // The members to ingest, in a useful order (logs before the JSON that enriches them).
  const std::vector<BundleFile>& files() const { return files_; }
  const std::string& path() const { return path_; }

 private:
  Bundle() = default;
  void collect(const std::string& root, const std::string& shown_prefix, Assembler& out);

  std::string path_;
  std::string temp_dir_;  // extraction directory of an archive, removed on destruction
  std::vector<BundleFile> files_;
};

// The members of a ustar archive, streamed out of `in` into `dir`. Returns false (after a
// diagnostic) when the archive is damaged or cut short; what was read so far stays in `dir`.
bool extract_tar(InputStream& in, const std::string& dir, Assembler& out);

// Kinds the manifest marks that the loader should not ingest (environment, engine).
bool bundle_kind_is_input(const std::string& kind);

}  // namespace trtlens
