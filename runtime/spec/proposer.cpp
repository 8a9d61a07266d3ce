// make_proposer: the proposer a speculative_config names.

#include "runtime/spec/proposer.h"

#include <string>

#include "runtime/spec/ngram_proposer.h"
#include "runtime/spec/suffix_proposer.h"

namespace pagedserve::spec {

result<std::unique_ptr<proposer>> make_proposer(const speculative_config& config) {
  if (config.method == speculative_method::ngram) {
    return std::unique_ptr<proposer>(
        std::make_unique<ngram_proposer>(config.prompt_lookup_min, config.prompt_lookup_max));
  }
  if (config.method == speculative_method::suffix) {
    suffix_options options;
    options.max_depth = config.suffix_decoding_max_tree_depth;
    options.max_cached_requests = config.suffix_decoding_max_cached_requests;
    options.min_token_prob = static_cast<float>(config.suffix_decoding_min_token_prob);
    return std::unique_ptr<proposer>(std::make_unique<suffix_proposer>(options));
  }
  return make_error(error_code::invalid_argument, "speculative_config: no proposer for method '" +
                                                      std::string(to_string(config.method)) + "'");
}

}  // namespace pagedserve::spec
