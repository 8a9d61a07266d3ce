#pragma once
// built_in_model: which model an engine_config names. `model` (model_dir) is a HF folder, or
// one of two built-in names:
//   pagedserve-demo  the shipped demo model (models/pagedserve-demo: a small Llama trained on
//                    the Brown Corpus with its own BPE tokenizer; train/, docs/demo-model.md).
//                    An empty model (and no model_config) means this one: it is the default.
//   demo-random      the old demo: a Llama shape with seeded random weights and the byte-level
//                    demo tokenizer, built in memory (tests that need no files use it).
// A folder of either name in the working directory wins over the built-in (as a path would).
//
// The shipped folder is looked up in: $PAGEDSERVE_BUILT_IN_MODEL_DIR, the install tree
// (<prefix>/share/pagedserve/models/pagedserve-demo, beside bin/), then the source tree this
// binary was built from.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "api/engine_config.h"
#include "common/result.h"

namespace pagedserve {

inline constexpr std::string_view built_in_model_name = "pagedserve-demo";
inline constexpr std::string_view random_model_name = "demo-random";
// The demo model's speculative draft (models/pagedserve-demo-draft), shipped beside it:
// speculative_config {"method": "draft_model", "model": "pagedserve-demo-draft"}.
inline constexpr std::string_view built_in_draft_model_name = "pagedserve-demo-draft";

// True when the config names the in-memory random demo model.
[[nodiscard]] bool uses_random_demo_model(const engine_config& config);
// True when the config names the shipped demo model (explicitly or by default).
[[nodiscard]] bool uses_built_in_model(const engine_config& config);
// The name a server reports for the model `config` loads (engine_model_info::name): the
// built-in models' names, a checkpoint folder's name, a bare model config file's stem.
[[nodiscard]] std::string engine_model_name(const engine_config& config);

// The places searched for a shipped folder (`name`: the demo model's by default), in order
// ($PAGEDSERVE_BUILT_IN_MODEL_DIR names the demo model's folder; the draft's is its sibling).
[[nodiscard]] std::vector<std::filesystem::path> built_in_model_candidates(
    std::string_view name = built_in_model_name);
// The shipped folder, or an error naming where it was looked for.
[[nodiscard]] result<std::filesystem::path> built_in_model_dir(
    std::string_view name = built_in_model_name);
// speculative_config.model's folder: a folder of that name, else the shipped draft.
[[nodiscard]] result<std::filesystem::path> resolved_draft_model_dir(const engine_config& config);

// The checkpoint folder the config names: model_dir, or the shipped folder; empty for the
// random demo model and for model_config (random weights from a config.json).
[[nodiscard]] result<std::filesystem::path> resolved_model_dir(const engine_config& config);

}  // namespace pagedserve
