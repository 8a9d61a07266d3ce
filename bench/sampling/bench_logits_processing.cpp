// bench_logits_processing: what penalties and logit_bias cost the host sampler per step at
// 256 sequences of a 151,936-token vocabulary (Qwen's): each sequence has a 1,024-token
// prompt and 256 generated tokens (its token_counts), a temperature-0.8 sampler, and five
// logit_bias entries. Printed: microseconds per step of sampling alone (the baseline), of
// copying + processing + sampling, and their ratio, measured interleaved in one run.
//
//   bench_logits_processing [--steps N]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/sampling/logits_processing.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve {
namespace {

constexpr std::size_t k_sequences = 256;
constexpr std::size_t k_vocab = 151936;

struct sequence {
  std::vector<float> logits;
  sampling_params params;
  sampler_state state{0, 0};
  token_counts counts;
};

std::vector<sequence> make_sequences() {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_int_distribution<token_id> token(0, static_cast<token_id>(k_vocab - 1));
  std::vector<sequence> seqs(k_sequences);
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    sequence& s = seqs[i];
    s.logits.resize(k_vocab);
    for (float& l : s.logits) l = normal(gen);
    s.params.temperature = 0.8f;
    s.params.presence_penalty = 0.5f;
    s.params.frequency_penalty = 0.3f;
    s.params.repetition_penalty = 1.1f;
    for (token_id t = 0; t < 5; ++t) s.params.logit_bias.emplace_back(t * 1000, 2.0f);
    s.state = sampler_state(i, i);
    std::vector<token_id> prompt(1024), generated(256);
    for (token_id& t : prompt) t = token(gen);
    for (token_id& t : generated) t = token(gen) % 4096;
    s.counts.reset(prompt, generated);
  }
  return seqs;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One step of every sequence; returns its seconds. `process`: with the logits processing.
double step(std::vector<sequence>& seqs, bool process, std::vector<float>& scratch,
            std::size_t& checksum) {
  const auto start = std::chrono::steady_clock::now();
  for (sequence& s : seqs) {
    if (process) {
      scratch.assign(s.logits.begin(), s.logits.end());
      process_logits(scratch, s.params, logit_edits(s.params, {}, 256), &s.counts);
      checksum += static_cast<std::size_t>(sample(scratch, s.params, s.state));
    } else {
      checksum += static_cast<std::size_t>(sample(s.logits, s.params, s.state));
    }
  }
  return seconds_since(start);
}

int run(int steps) {
  std::vector<sequence> seqs = make_sequences();
  std::vector<float> scratch;
  std::size_t checksum = 0;
  std::vector<double> plain, processed;
  (void)step(seqs, false, scratch, checksum);  // warm-up
  (void)step(seqs, true, scratch, checksum);
  for (int i = 0; i < steps; ++i) {  // interleaved, so drift hits both alike
    plain.push_back(step(seqs, false, scratch, checksum));
    processed.push_back(step(seqs, true, scratch, checksum));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double a = median(plain) * 1e6;
  const double b = median(processed) * 1e6;
  std::printf("host sampler, %zu sequences x %zu vocab, median of %d steps (checksum %zu)\n",
              k_sequences, k_vocab, steps, checksum % 1000);
  std::printf("  %-48s %10.0f us/step\n", "sample (t 0.8), baseline", a);
  std::printf("  %-48s %10.0f us/step\n", "copy + penalties + logit_bias + sample", b);
  std::printf("  %-48s %10.2fx\n", "ratio", b / a);
  std::printf("  %-48s %10.0f us/step\n", "logits processing alone (difference)", b - a);
  return 0;
}

}  // namespace
}  // namespace pagedserve

int main(int argc, char** argv) {
  int steps = 9;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::max(1, std::atoi(argv[i + 1]));
  }
  return pagedserve::run(steps);
}
