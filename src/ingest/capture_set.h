// Which inputs of `db add` form one capture: a bundle directory or archive is one; a directory
// holding bundles gives one per bundle; loose files given together are one.
#pragma once

#include <string>
#include <vector>

#include "io/digest.h"
#include "io/input.h"

namespace trtlens {

struct CaptureInputs {
  std::vector<std::string> paths;     // what load_capture() reads
  std::string shown;                  // the inputs as the user would name them
  std::vector<DigestMember> members;  // every file, for the content hash
};

// Throws InputError for an input that does not exist or a directory that holds no capture.
std::vector<CaptureInputs> group_captures(const std::vector<std::string>& inputs,
                                          const ReadLimits& limits);

}  // namespace trtlens
