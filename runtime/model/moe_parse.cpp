#include "runtime/model/moe_parse.h"

#include <fmt/format.h>

#include "runtime/model/model_limits.h"

namespace pagedserve::detail {
namespace {

void check_range(json_fields& fields, std::string_view key, std::int64_t value, std::int64_t low,
                 std::int64_t high) {
  if (value < low || value > high) {
    fields.fail(error_code::invalid_argument, key,
                fmt::format("is {}; it must lie in [{}, {}]", value, low, high));
  }
}

std::int64_t read_num_experts(json_fields& fields) {
  for (const char* key : {"num_experts", "num_local_experts"}) {
    if (std::optional<std::int64_t> n = fields.optional_int(key)) {
      check_range(fields, key, *n, 1, model_limits::max_num_experts);
      return *n;
    }
  }
  fields.fail(error_code::invalid_argument, "num_experts",
              "is missing (neither num_experts nor num_local_experts is set)");
  return 0;
}

}  // namespace

moe_config read_moe_config(json_fields& fields, const model_config& config) {
  moe_config moe;
  switch (config.family) {
    case model_family::qwen2_moe:
    case model_family::qwen3_moe:
      moe.expert_intermediate_size = fields.required_int("moe_intermediate_size");
      moe.renormalize = fields.bool_or("norm_topk_prob", false);
      moe.decoder_sparse_step = fields.optional_int("decoder_sparse_step").value_or(1);
      moe.mlp_only_layers = fields.int_or_int_list("mlp_only_layers");
      if (config.family == model_family::qwen2_moe) {
        moe.shared_expert_intermediate_size =
            fields.required_int("shared_expert_intermediate_size");
      }
      break;
    case model_family::mixtral:
      moe.expert_intermediate_size = config.intermediate_size;
      moe.renormalize = true;  // MixtralSparseMoeBlock always renormalises the top-k
      break;
    default:
      return moe;
  }
  moe.num_experts = read_num_experts(fields);
  moe.top_k = fields.required_int("num_experts_per_tok");
  return moe;
}

void validate_moe_config(json_fields& fields, const model_config& config) {
  const moe_config& moe = config.moe;
  if (!has_experts(config.family)) return;
  check_range(fields, "num_experts_per_tok", moe.top_k, 1, moe.num_experts);
  check_range(fields, "moe_intermediate_size", moe.expert_intermediate_size, 1,
              model_limits::max_intermediate_size);
  check_range(fields, "shared_expert_intermediate_size", moe.shared_expert_intermediate_size, 0,
              model_limits::max_intermediate_size);
  check_range(fields, "decoder_sparse_step", moe.decoder_sparse_step, 1,
              model_limits::max_num_layers);
  if (moe.num_experts * config.num_layers > model_limits::max_total_experts) {
    fields.fail(error_code::invalid_argument, "num_experts",
                fmt::format("({}) times num_hidden_layers ({}) is above the limit {} "
                            "(docs/model-folder-limits.md)",
                            moe.num_experts, config.num_layers, model_limits::max_total_experts));
  }
  for (std::int64_t layer : moe.mlp_only_layers) {
    check_range(fields, "mlp_only_layers", layer, 0, config.num_layers - 1);
  }
}

}  // namespace pagedserve::detail
