#pragma once
// executor_step_figures: what one executor step cost, reported by the executor with the
// step's output and summed into engine_stats by engine_core. Internal to the engine.

#include <cstdint>

namespace pagedserve {

// What one executor step cost (the executor reports it with the step's output).
struct executor_step_figures {
  double idle_s = 0.0;         // the executor waited for this step's plan (work was in flight)
  double busy_s = 0.0;         // executor time for the step, waits for the device included
  double host_s = 0.0;         // ... excluded
  double device_idle_s = 0.0;  // the device idle before the step (CUDA events; else 0)
  double device_busy_s = 0.0;  // the device running the step
  bool replayed_graph = false;
};

}  // namespace pagedserve
