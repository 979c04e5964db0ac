// Tensor memory per layer (the seed's convention: input + weights + output bytes) and sums per
// build. TensorRT's own figures are already in the model (the ingesters put them there).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// --shape name=1x3x224x224 -> (name, dims); nullopt when malformed.
std::optional<std::pair<std::string, std::vector<int64_t>>> parse_shape_option(
    const std::string& spec);

// Resolves dynamic (negative) dims of a build's tensors from shapes given by name. TensorRT
// prints each symbolic dimension as its own negative number (-17, -40 ...; older releases -1
// for all): a shape given for an input fixes the symbols on that input's dynamic axes, and
// every other dim with the same symbol. A symbol given two values stays unknown. Dims the ONNX
// model's shape inference gave (`onnx`, by tensor name) come last: a tensor of that name takes
// them where they agree with what TensorRT printed, and fix its symbols for other tensors.
class ShapeResolver {
 public:
  ShapeResolver(const Build& b, const std::map<std::string, std::vector<int64_t>>& shapes,
                const std::map<std::string, std::vector<int64_t>>* onnx = nullptr);
  // Concrete dims of `t`, or nullopt when some dim stays dynamic or the tensor has no dims.
  std::optional<std::vector<int64_t>> dims(const Tensor& t) const;
  // Where the dims come from: printed concrete, fixed by a given shape, by ONNX inference.
  enum class Source { Unknown, Printed, Given, Onnx };
  Source source(const Tensor& t) const;
  // A symbol (negative dim) some given or inferred shape fixes.
  bool fixes(int64_t symbol) const { return symbols_.count(symbol) || onnx_symbols_.count(symbol); }

 private:
  std::optional<std::vector<int64_t>> resolve(const Tensor& t, Source& how) const;
  bool agrees(const Tensor& t, const std::vector<int64_t>& dims) const;
  // The inferred dims of the ONNX tensor `name` names, or of the one it is a cut-short prefix of.
  const std::vector<int64_t>* onnx_dims(const std::string& name) const;
  const std::map<std::string, std::vector<int64_t>>& shapes_;
  const std::map<std::string, std::vector<int64_t>>* onnx_;
  std::map<int64_t, int64_t> symbols_;       // negative dim -> the value a given shape fixes
  std::map<int64_t, int64_t> onnx_symbols_;  // the same with ONNX-inferred tensors added
  std::vector<std::string> onnx_names_;      // sorted
};

// Bytes of `count` elements of a canonical dtype (INT4/FP4 = half a byte, rounded up);
// nullopt for an unknown dtype or an overflow.
std::optional<uint64_t> element_bytes(const std::string& dtype, uint64_t count);
std::optional<uint64_t> volume(const std::vector<int64_t>& dims);

// Fills Layer::memory (input/weight/output/total bytes) and the BuildMemory sums, then the
// liveness estimate. Problems (unknown dtypes, malformed --shape) become diagnostics. Builds
// are analysed on up to `threads` threads (0: one per core); with `only`, those it marks.
void analyze_memory(Capture& capture, const std::vector<std::string>& shape_options,
                    unsigned threads = 0, const std::vector<bool>& only = {});

}  // namespace trtlens
