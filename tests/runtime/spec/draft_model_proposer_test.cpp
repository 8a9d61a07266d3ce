// draft_model_proposer against the draft model's greedy chain computed from scratch: two
// sequences propose together, round after round, while a simulated verification accepts
// some proposals and replaces the next one with a different token (a rejection), as the
// executor does, leaving the draft's count of fed positions as the proposer set it. Every
// proposal must be what a fresh forward over the sequence's actual tokens gives (the
// forward itself matches transformers: tests/runtime/forward). A stale K/V entry left by a
// rejected proposal, a catch-up that skipped or repeated a position, or a proposal fed back
// at the wrong position would change the chain.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "runtime/sampling/sampler.h"
#include "runtime/spec/draft_model_proposer.h"
#include "tests/runtime/forward/golden_model.h"

namespace pagedserve::spec {
namespace {

using forward::testing::golden_model;

constexpr std::int64_t k_block_size = 16;

// The draft's next `count` greedy tokens after `tokens`, each from a forward over the whole
// sequence on an empty cache.
std::vector<token_id> fresh_chain(forward::model_forward& model, std::vector<token_id> tokens,
                                  std::uint32_t count) {
  std::vector<block_id> table;
  for (std::uint32_t b = 0; b < 24; ++b) table.emplace_back(b);
  std::vector<token_id> out;
  for (std::uint32_t i = 0; i < count; ++i) {
    forward::paged_kv_cache cache(
        model.backend(), forward::kv_cache_layout::for_model(model.config(), 24, k_block_size));
    forward::forward_batch batch;
    batch.sequences.push_back({tokens, 0, table});
    const forward::forward_output result = model.run(batch, cache);
    out.push_back(greedy_sample(result.last(0)));
    tokens.push_back(out.back());
  }
  return out;
}

TEST(DraftModelProposer, ProposesTheDraftsGreedyChainThroughRejections) {
  golden_model draft = golden_model::load("tiny-llama");
  golden_model reference = golden_model::load("tiny-llama");
  auto cache = std::make_unique<forward::paged_kv_cache>(
      draft.forward->backend(),
      forward::kv_cache_layout::for_model(draft.config, 48, k_block_size));
  draft_model_proposer proposer(std::move(draft.forward), std::move(cache));

  std::vector<std::vector<token_id>> tokens = {draft.prompts[0].ids, draft.prompts[1].ids};
  std::vector<std::vector<block_id>> tables(2);
  for (std::uint32_t b = 0; b < 24; ++b) {
    tables[0].emplace_back(b);
    tables[1].emplace_back(24 + b);
  }
  std::vector<draft_request> requests(2);
  std::mt19937 rng(7);
  const auto vocab = static_cast<token_id>(draft.config.vocab_size);
  std::uint32_t num_rejections = 0;
  for (int round = 0; round < 10; ++round) {
    for (std::size_t s = 0; s < 2; ++s) {
      requests[s].tokens = tokens[s];
      requests[s].block_table = tables[s];
      requests[s].max_tokens = 1 + static_cast<std::uint32_t>(rng() % 4);
    }
    proposer.propose(requests);
    for (std::size_t s = 0; s < 2; ++s) {
      draft_request& r = requests[s];
      SCOPED_TRACE("round " + std::to_string(round) + ", sequence " + std::to_string(s));
      ASSERT_EQ(r.proposed, fresh_chain(*reference.forward, tokens[s], r.max_tokens));
      // Verification: `kept` proposals accepted, then a token other than the next proposal.
      const auto kept = static_cast<std::uint32_t>(rng() % (r.max_tokens + 1));
      tokens[s].insert(tokens[s].end(), r.proposed.begin(), r.proposed.begin() + kept);
      token_id next = static_cast<token_id>(rng() % static_cast<std::uint32_t>(vocab));
      if (kept < r.max_tokens) {
        next = (r.proposed[kept] + 1 + static_cast<token_id>(rng() % 7)) % vocab;
        ++num_rejections;
      }
      tokens[s].push_back(next);  // r.num_computed is left as the proposer set it
    }
  }
  EXPECT_GT(num_rejections, 5u);
}

}  // namespace
}  // namespace pagedserve::spec
