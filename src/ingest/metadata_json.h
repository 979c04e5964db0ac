// TREx's metadata JSON (utils/parse_trtexec_log.py and utils/device_info.py): the options,
// device information and performance summary of a trtexec run, already parsed out of its log.
//   *.build.metadata.json    {"model_options": {..}, "build_options": {..}, "device_information":
//   {..}}
//   *.profile.metadata.json  {"performance_summary": {..}, "inference_options": {..},
//   "device_information": {..}}
//   *.engine.metadata.json   [{"Name": .., "ComputeCapability": [8, 0], "TotalMemory": .., CUDA
//   attributes}]
#pragma once

#include <string>
#include <string_view>

#include "model/assembler.h"

namespace trtlens {

// True when `body` (the input after leading whitespace) starts like one of the three shapes.
bool looks_like_trex_metadata(std::string_view body);

// Reads the whole file into a run of its own. Throws InputError for invalid JSON or a shape
// that is none of the three.
void ingest_metadata_json(const std::string& text, Assembler& out, const std::string& path);

}  // namespace trtlens
