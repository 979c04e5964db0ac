// Findings: checks that explain a slow or surprising build.
#pragma once

#include <string>
#include <vector>

namespace trtlens {

struct Finding {};

}  // namespace trtlens
