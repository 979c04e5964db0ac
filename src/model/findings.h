// Findings: checks that explain a slow or surprising build.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/source.h"

namespace trtlens {

struct Finding {
  std::string id;  // stable, e.g. "reformat-cost"
  Severity severity = Severity::Info;
  int build = -1;
  std::string message;  // one line
  std::vector<std::string> layers;
  std::vector<std::string> onnx_nodes;
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
  std::string hint;
};

}  // namespace trtlens
