#include "model/timing.h"

namespace trtlens {

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Unknown:
      return "unknown";
    case RunStatus::Running:
      return "running";
    case RunStatus::Passed:
      return "passed";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Crashed:
      return "crashed";
    case RunStatus::TimedOut:
      return "timed-out";
    case RunStatus::Cut:
      return "cut";
  }
  return "unknown";
}

const char* to_string(RunPhase p) {
  switch (p) {
    case RunPhase::None:
      return "none";
    case RunPhase::Parsing:
      return "parsing";
    case RunPhase::Optimization:
      return "optimization";
    case RunPhase::TacticSelection:
      return "tactic-selection";
    case RunPhase::EngineGeneration:
      return "engine-generation";
    case RunPhase::Serialization:
      return "serialization";
    case RunPhase::Inference:
      return "inference";
  }
  return "none";
}

}  // namespace trtlens
