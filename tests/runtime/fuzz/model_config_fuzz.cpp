// libFuzzer target fuzz_model_config: config.json up to the input's first NUL and, after it,
// generation_config.json. The text goes through parse_model_config (and, when accepted,
// the weight list the loaders size from it), then as files through load_model_config,
// load_generation_defaults and load_quant_spec (config.json's quantization_config). A
// refusal is an error value: only a crash, a sanitizer report, a leak or an allocation past
// -malloc_limit_mb is a finding.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/model/generation_defaults.h"
#include "runtime/model/model_config.h"
#include "runtime/model/model_limits.h"
#include "runtime/model/weight_names.h"
#include "runtime/quant/quant_spec.h"
#include "tests/runtime/fuzz/fuzz_folder.h"

namespace {

using namespace pagedserve;

void check(bool ok) {
  if (!ok) std::abort();
}

// An accepted config keeps to the documented caps, so the weight list stays small.
void check_accepted(const model_config& config) {
  check(config.num_layers >= 1 && config.num_layers <= model_limits::max_num_layers);
  check(config.vocab_size >= 1 && config.vocab_size <= model_limits::max_vocab_size);
  check(config.hidden_size >= 1 && config.hidden_size <= model_limits::max_hidden_size);
  check(config.head_dim >= 1 && config.head_dim <= model_limits::max_head_dim);
  const std::vector<tensor_spec> specs = expected_tensors(config);
  check(specs.size() <= 32 * static_cast<std::size_t>(model_limits::max_num_layers));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pagedserve::fuzzing;
  const split_input parts =
      split_at_nul(std::string_view(reinterpret_cast<const char*>(data), size));
  if (auto config = parse_model_config(parts.first, "config.json")) check_accepted(*config);

  write_file("config.json", parts.first);
  if (parts.has_second) {
    write_file("generation_config.json", parts.second);
  } else {
    remove_file("generation_config.json");
  }
  if (auto config = load_model_config(scratch_folder())) check_accepted(*config);
  (void)load_generation_defaults(scratch_folder());
  (void)quant::load_quant_spec(scratch_folder());
  return 0;
}
