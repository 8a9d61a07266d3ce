#pragma once
// unigram_baseline: the held-out cross-entropy of a unigram model of the same tokenizer,
// p(token) = (count in the training stream + 1) / (tokens + vocab) (add-one smoothing, so a
// token unseen in training keeps a finite cost). The floor any model of context must beat.

#include <cstdint>

#include "train/model/token_stream.h"

namespace pagedserve::train {

// Mean negative log-likelihood in nats per token over every held-out token after the first.
[[nodiscard]] double unigram_heldout_loss(const token_stream& train, const token_stream& heldout,
                                          std::int64_t vocab_size);

}  // namespace pagedserve::train
