// Sentences the HTML and Markdown reports share, so both say the same thing.
#pragma once

#include <string>

#include "analysis/report.h"

namespace trtlens {

// "NVIDIA A100 80GB PCIe, compute capability 8.0, 108 SMs at 1.41 GHz: peak dense FP16 312 TFLOPS
// (ridge 80.6 MACs/byte), …; memory 1935 GB/s." or the reason there is no roofline. Empty when
// nothing is known and nothing is missing.
std::string device_roofline_text(const DevicePeaks& device);

}  // namespace trtlens
