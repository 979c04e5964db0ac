// Kernels: channel counts tensor cores cannot use well, and kernels that are not tensor-core.
#include <algorithm>
#include <cctype>

#include "analysis/findings/rules.h"

namespace trtlens::findings {
namespace {

// Channel multiple tensor-core kernels want for a compute type (0 = no requirement checked).
int channel_alignment(const std::string& dtype) {
  if (dtype == "INT8" || dtype == "FP8") return 16;
  if (dtype == "FP16" || dtype == "BF16") return 8;
  return 0;
}

// Fragments of tensor-core kernel names across generations (IMMA/HMMA/XMMA/GMMA, the
// i8816/h1688/884 shape tags, TRT 10 "tensor16x8x8").
bool tensor_core_kernel(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  for (const char* tag :
       {"imma", "hmma", "xmma", "gmma", "qmma", "i88", "884", "1688", "16816", "tensor", "tf32"})
    if (name.find(tag) != std::string::npos) return true;
  return false;
}

}  // namespace

void kernel_rules(const BuildView& v, std::vector<Finding>& out) {
  for (const auto& l : v.build.layers) {
    if (!(is_convolution(l) || is_gemm(l)) || l.inputs.empty() || l.outputs.empty()) continue;
    if (is_depthwise(l)) continue;  // depthwise kernels are CUDA-core by design
    const Tensor& in = l.inputs.front();
    const Tensor& o = l.outputs.front();
    std::string dtype = compute_dtype(l);
    int align = channel_alignment(dtype);
    if (is_convolution(l) && align && in.dims.size() == 4 && o.dims.size() == 4 && in.dims[1] > 0 &&
        o.dims[1] > 0) {
      int64_t groups =
          int_attribute(l, "Groups").value_or(int_attribute(l, "ConvGroups").value_or(1));
      if (groups < 1) groups = 1;
      int64_t c = in.dims[1] / groups, k = o.dims[1] / groups;
      bool c_bad = c % align != 0, k_bad = k % align != 0;
      if (c_bad || k_bad) {
        // A few input channels (an RGB image) cannot be helped much; say so mildly.
        bool small_input = !k_bad && c < align;
        std::string msg =
            dtype + " convolution " + l.name + " has " + (c_bad ? "C=" + std::to_string(c) : "") +
            (c_bad && k_bad ? " and " : "") + (k_bad ? "K=" + std::to_string(k) : "") +
            ", not a multiple of " + std::to_string(align);
        if (groups > 1) msg += " (per group, " + std::to_string(groups) + " groups)";
        Finding f = make_finding(
            v, "channels-unaligned", small_input ? Severity::Info : Severity::Warning, msg,
            small_input ? "Few input channels (an image?): padding C to " + std::to_string(align) +
                              " may let a tensor-core kernel run."
                        : "Pad the channel counts to a multiple of " + std::to_string(align) +
                              " in the model; TensorRT pads internally and wastes the rest.");
        add_layer(f, l);
        f.evidence = {
            {"precision", dtype}, {"C", c}, {"K", k}, {"groups", groups}, {"alignment", align}};
        out.push_back(std::move(f));
      }
    }
    if (precision_rank(dtype) >= 0 && precision_rank(dtype) < 3 && !l.tactic_name.empty() &&
        !tensor_core_kernel(l.tactic_name)) {
      Finding f = make_finding(v, "no-tensor-core", Severity::Warning,
                               dtype + " layer " + l.name + " runs kernel " + l.tactic_name +
                                   ", not a tensor-core kernel",
                               "Usually channel counts (see channels-unaligned) or an unusual "
                               "shape; check alignment and layout.");
      add_layer(f, l);
      f.evidence = {{"precision", dtype}, {"kernel", l.tactic_name}};
      if (l.tactic) f.evidence["tactic"] = *l.tactic;
      out.push_back(std::move(f));
    }
  }
}

}  // namespace trtlens::findings
