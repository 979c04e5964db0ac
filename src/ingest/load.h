// Reads every input of one capture into the model: open, sniff, hand to its ingester.
#pragma once

#include <string>
#include <vector>

#include "ingest/grammar.h"
#include "io/input.h"
#include "model/capture.h"

namespace trtlens {

// Throws InputError ("PATH: reason") for inputs that cannot be read as TensorRT output.
Capture load_capture(const std::vector<std::string>& paths, const Grammar& grammar,
                     const ReadLimits& limits = {});

}  // namespace trtlens
