#pragma once
// When each request of a load test is sent, as vLLM's `bench serve` does: an infinite rate
// sends everything at once; otherwise the gaps between requests are gamma-distributed with
// shape = burstiness and scale = 1 / (rate * burstiness), so the mean rate is `request_rate`
// for any burstiness; burstiness 1 is a Poisson process, < 1 burstier, > 1 more regular.

#include <cstdint>
#include <limits>
#include <vector>

namespace pagedserve::loadtest {

struct arrival_spec {
  double request_rate = std::numeric_limits<double>::infinity();  // requests per second, > 0
  double burstiness = 1.0;                                        // > 0
};

// Send times in seconds from the start of the run, non-decreasing; the first is 0. Own
// gamma sampler (Marsaglia-Tsang) on std::mt19937_64: the same seed gives the same times on
// every standard library.
[[nodiscard]] std::vector<double> arrival_offsets(std::size_t num_requests,
                                                  const arrival_spec& spec, std::uint64_t seed);

}  // namespace pagedserve::loadtest
