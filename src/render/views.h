// Terminal / table views of the model: what `summary` and `layers` print.
#pragma once

#include <ostream>
#include <string>

#include "model/capture.h"
#include "render/text_table.h"

namespace trtlens {

std::string format_dims(const Tensor& t);      // "1x3:4x224x224", "?" without dims
std::string format_tensor(const Tensor& t);    // "FP32 1x3x224x224"
TextTable layers_table(const Build& build);
// "36 layers: 25 run, 11 elided; 2 reformat" from Build::totals, or what stays unknown.
std::string format_layer_counts(const BuildTotals& totals);
void write_summary(const Capture& capture, const std::vector<const Build*>& builds,
                   std::ostream& os);
void write_diagnostics(const Capture& capture, std::ostream& os, size_t limit = 20);

}  // namespace trtlens
