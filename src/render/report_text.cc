#include "render/report_text.h"

#include "io/units.h"

namespace trtlens {

std::string device_roofline_text(const DevicePeaks& d) {
  std::string s = d.name.empty() ? std::string("the device") : d.name;
  if (!d.compute_capability.empty()) s += ", compute capability " + d.compute_capability;
  if (d.sms && d.clock_ghz)
    s += ", " + human_number(*d.sms) + " SMs at " + human_number(*d.clock_ghz, "GHz");
  if (!d.tflops.empty()) {
    s += ": peak dense";
    bool first = true;
    for (const char* math : {"FP32", "TF32", "FP16", "BF16", "FP8", "INT8"}) {
      auto it = d.tflops.find(math);
      if (it == d.tflops.end()) continue;
      s += std::string(first ? " " : ", ") + math + " " +
           human_number(it->second, std::string(math) == "INT8" ? "TOPS" : "TFLOPS");
      auto r = d.ridge.find(math);
      if (r != d.ridge.end()) s += " (ridge " + human_number(r->second, "MACs/byte") + ")";
      first = false;
    }
  }
  if (d.gbps)
    s += std::string(d.tflops.empty() ? ": " : "; ") + "memory " + human_number(*d.gbps, "GB/s") +
         " (2 × memory clock × bus width)";
  s += ".";
  if (!d.note.empty()) s = d.name.empty() && !d.gbps ? d.note + "." : s + " " + d.note + ".";
  return s;
}

}  // namespace trtlens
