#include "runtime/engine/draft_model_loading.h"

#include <string>
#include <utility>

#include "runtime/engine/built_in_model.h"
#include "runtime/engine/model_loading.h"

namespace pagedserve {
namespace {

error refused(const std::string& model, const std::string& why) {
  return make_error(error_code::invalid_argument,
                    "speculative_config model '" + model + "': " + why);
}

}  // namespace

result<loaded_draft_model> load_draft_model(const engine_config& config,
                                            const model_config& target) {
  const std::string& name = config.speculative.model;
  auto folder = resolved_draft_model_dir(config);
  if (!folder) return refused(name, folder.err().message);
  engine_config draft;  // the draft as a model of its own: its folder, its declared format
  draft.model_dir = folder->string();
  auto model = load_engine_model_config(draft);
  if (!model) return refused(name, model.err().message);
  if (model->vocab_size != target.vocab_size) {
    return refused(name, "its vocab_size " + std::to_string(model->vocab_size) +
                             " is not the target's " + std::to_string(target.vocab_size) +
                             " (a draft must share the target's tokenizer)");
  }
  if (model->max_position_embeddings > 0 &&
      std::uint64_t(model->max_position_embeddings) < config.sched.max_model_len) {
    return refused(name,
                   "its max_position_embeddings " + std::to_string(model->max_position_embeddings) +
                       " is below max_model_len " + std::to_string(config.sched.max_model_len));
  }
  auto weights = load_engine_weights(draft, *model);
  if (!weights) return refused(name, weights.err().message);
  return loaded_draft_model{std::move(*model), std::move(*weights)};
}

}  // namespace pagedserve
