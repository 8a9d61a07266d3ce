#pragma once
// training_run: the loop. Each step draws `batch` random windows of the training stream,
// runs forward and backward, and takes an AdamW step at the schedule's rate. Every
// eval_every steps the held-out stream is scored (the same windows each time); every
// save_every steps, and at the end, the HF folder and the resumable state are written. A run
// is a pure function of its options and seed: resuming from a saved state gives the same
// weights as never stopping.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "train/model/adamw.h"
#include "train/model/model_shape.h"
#include "train/model/token_stream.h"

namespace pagedserve::train {

struct run_options {
  model_shape shape;
  special_ids specials;
  std::int64_t batch = 16;
  std::int64_t seq_len = 256;
  lr_schedule schedule;
  adamw_options optimizer;
  std::uint64_t seed = 1;
  std::int64_t eval_every = 200;      // 0: only at the end
  std::int64_t eval_windows = 64;     // held-out windows scored each time (0: all)
  std::int64_t save_every = 500;      // 0: only at the end
  std::string weight_dtype = "BF16";  // of model.safetensors: "BF16" or "F32"
  std::filesystem::path out_dir;
  std::filesystem::path tokenizer_dir;  // its tokenizer files are copied into out_dir (if set)
  bool show_progress = true;
  std::int64_t stop_after_steps = 0;  // > 0: end this invocation after this many steps
};

// One line of loss.csv.
struct step_record {
  std::int64_t step = 0;
  std::int64_t tokens = 0;
  double train_loss = 0.0;
  double heldout_loss = -1.0;  // -1 where not measured
  double lr = 0.0;
  double grad_norm = 0.0;
  double seconds = 0.0;
};

struct run_summary {
  std::int64_t steps = 0;
  std::int64_t tokens_seen = 0;
  double final_train_loss = 0.0;  // mean of the last eval_every steps
  double heldout_loss = 0.0;
  std::int64_t num_parameters = 0;
  double seconds = 0.0;
};

// Runs (or, with out_dir/training_state.* present and resume set, continues) the training.
[[nodiscard]] result<run_summary> run_training(const run_options& options,
                                               const token_stream& train,
                                               const token_stream& heldout, bool resume);

// Mean held-out loss of `params` over the first `windows` tiling windows (0: all).
[[nodiscard]] double heldout_loss(const parameter_layout& layout, const std::vector<float>& params,
                                  const token_stream& heldout, std::int64_t batch,
                                  std::int64_t seq_len, std::int64_t windows);

}  // namespace pagedserve::train
