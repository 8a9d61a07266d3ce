#pragma once
// proposer: where speculative decoding's proposed tokens come from. The executor asks it,
// for each sequence given lookahead slots in a step, for up to that many tokens likely to
// follow the sequence's tokens; the target model verifies them in the same step
// (runtime/worker/speculative_path.cpp). A proposer's tokens need not be good, only cheap:
// a wrong one costs a slot of the step, never a different output.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "api/speculative_config.h"
#include "common/result.h"
#include "common/types.h"

namespace pagedserve::spec {

class proposer {
 public:
  virtual ~proposer() = default;
  // Up to `max_tokens` tokens to follow `tokens` (prompt then outputs) into `out` (cleared
  // first); none is a valid answer. Deterministic: the proposal is a function of the
  // proposer's state and `tokens`, so the verifier treats it as proposed with probability 1.
  virtual void propose(std::span<const token_id> tokens, std::uint32_t max_tokens,
                       std::vector<token_id>& out) = 0;
  // A sequence finished with these generated tokens (proposers that learn across requests
  // keep them; the others ignore them).
  virtual void add_finished(std::span<const token_id> /*output*/) {}
};

// The proposer `config` names (config.enabled()).
[[nodiscard]] result<std::unique_ptr<proposer>> make_proposer(const speculative_config& config);

}  // namespace pagedserve::spec
