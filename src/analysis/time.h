// Time: profile rows joined to the layers of their build, and statistics of timing traces.
#pragma once

#include <string>
#include <vector>

#include "model/capture.h"

namespace trtlens {

// Joins every build's profile to its layers (exact name, then " [profile N]" suffixes, then a
// row name cut short with "..."; never by position), fills Layer::time, the unmatched lists
// and the sums, finds the GPU compute time to compare with, and computes trace statistics.
void analyze_time(Capture& capture);

// Sums a build's joined profile by layer type, output precision and the running reformats
// (reads Layer::role: call after classify_layers).
void group_times(Build& build);

// trtexec's conventions (sampleReporting): median of the sorted values (mean of the middle two
// when even); percentile p = sorted[max(n - 1 - int((1 - p/100) * n), 0)] in float arithmetic;
// CV = population standard deviation / mean * 100; drift = mean of the first 10 % (at least one
// query) against the mean of the rest, in percent.
// Indices of the `n` joined layers with the largest average time, largest first.
std::vector<size_t> top_layers(const Build& build, size_t n);
// The canonical dtype of a layer's first output ("?" when unknown).
std::string precision_or_unknown(const Layer& layer);

Stats compute_stats(const std::vector<double>& values);
double trtexec_percentile(const std::vector<double>& sorted, float p);

}  // namespace trtlens
