// What each layer does at run time (runs / elided / reformat) and the per-build totals that
// every command prints. Computed once in analyze(); renderers read Layer::role and
// Build::totals and never judge from names or types themselves.
#pragma once

#include "model/capture.h"

namespace trtlens {

// The role of one layer. Elided: NoOp, or any layer the profile says cost exactly nothing (it
// aliases its input). Reformat: a Reformat / MyelinReformat layer that runs. Unknown only when
// the listing gives no type (names only) and no profile row says whether it ran.
LayerRole classify_layer(const Layer& layer);

// Layers that run but move no activation data: stored constants, host-side shape calls and
// stream events (TREx leaves them out of its activation totals too).
bool moves_no_activations(const Layer& layer);

// Fills Layer::role for every layer of every build (after the profiles are joined).
void classify_layers(Capture& capture);

// Fills Build::totals from the roles, the memory figures and the joined profile (after
// analyze_memory and analyze_time).
void compute_totals(Capture& capture);

}  // namespace trtlens
