#include "train/model/unigram_baseline.h"

#include <cmath>
#include <vector>

namespace pagedserve::train {

double unigram_heldout_loss(const token_stream& train, const token_stream& heldout,
                            std::int64_t vocab_size) {
  std::vector<double> counts(static_cast<std::size_t>(vocab_size), 1.0);
  for (std::int32_t id : train.ids) counts[static_cast<std::size_t>(id)] += 1.0;
  const double total = static_cast<double>(train.ids.size() + static_cast<std::size_t>(vocab_size));
  double nll = 0.0;
  for (std::size_t i = 1; i < heldout.ids.size(); ++i) {
    nll -= std::log(counts[static_cast<std::size_t>(heldout.ids[i])] / total);
  }
  return heldout.ids.size() > 1 ? nll / static_cast<double>(heldout.ids.size() - 1) : 0.0;
}

}  // namespace pagedserve::train
