#include "runtime/grammar/grammar_matcher.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "runtime/grammar/compiled_grammar_impl.h"
#include "runtime/grammar/grammar_stacks.h"
#include "runtime/grammar/state_token_mask.h"

namespace pagedserve::grammar {
namespace {

// Stack nodes a matcher keeps before dropping those its state no longer uses (~5 MiB).
constexpr std::size_t max_pool_nodes = std::size_t{1} << 18;

}  // namespace

struct grammar_matcher::state {
  explicit state(std::shared_ptr<const compiled_grammar> g)
      : grammar(std::move(g)), stacks(*grammar) {
    if (!stacks.initial(current)) current.clear();
  }

  std::shared_ptr<const compiled_grammar> grammar;
  grammar_stacks stacks;               // refers to *grammar
  std::vector<std::uint32_t> current;  // sorted stack ids; empty when nothing can match
  bool stopped = false;                // a stop token was accepted
  std::vector<std::uint32_t> scratch[2];
  state_token_mask masker;
  std::string key;
};

grammar_matcher::grammar_matcher(std::shared_ptr<const compiled_grammar> grammar)
    : state_(std::make_unique<state>(std::move(grammar))) {}
grammar_matcher::~grammar_matcher() = default;
grammar_matcher::grammar_matcher(grammar_matcher&&) noexcept = default;
grammar_matcher& grammar_matcher::operator=(grammar_matcher&&) noexcept = default;

const token_vocabulary& grammar_matcher::vocabulary() const {
  return state_->grammar->vocabulary();
}

bool grammar_matcher::accept_token(token_id id) {
  const auto& vocab = vocabulary();
  if (state_->stopped || id < 0 || static_cast<std::size_t>(id) >= vocab.size()) return false;
  if (vocab.is_stop(id)) {
    if (!is_accepting()) return false;
    state_->stopped = true;
    return true;
  }
  const std::string& bytes = vocab.bytes(id);
  return !bytes.empty() && accept_bytes(bytes);
}

bool grammar_matcher::accept_bytes(std::string_view bytes) {
  state& s = *state_;
  if (s.stopped) return false;
  s.stacks.compact(s.current, max_pool_nodes);
  // Advances through the scratch buffers so that the state is untouched on failure.
  std::span<const std::uint32_t> from = s.current;
  int target = 0;
  for (const char c : bytes) {
    if (!s.stacks.advance(from, static_cast<std::uint8_t>(c), s.scratch[target])) return false;
    from = s.scratch[target];
    target ^= 1;
  }
  if (!bytes.empty()) s.current.swap(s.scratch[target ^ 1]);
  return true;
}

bool grammar_matcher::is_accepting() const { return grammar_stacks::is_accepting(state_->current); }

bool grammar_matcher::is_terminated() const {
  return state_->stopped || (is_accepting() && state_->current.size() == 1);
}

void grammar_matcher::fill_next_token_bitmask(std::span<std::uint32_t> mask) {
  state& s = *state_;
  const auto& vocab = vocabulary();
  if (mask.size() != vocab.bitmask_words()) {  // a caller's bug: never write out of bounds
    std::fprintf(stderr, "grammar_matcher: mask has %zu words, the vocabulary needs %zu\n",
                 mask.size(), vocab.bitmask_words());
    std::abort();
  }
  if (s.stopped) {
    std::fill(mask.begin(), mask.end(), 0);
    return;
  }
  s.stacks.compact(s.current, max_pool_nodes);
  s.stacks.state_key(s.current, s.key);
  mask_cache& cache = s.grammar->masks();
  if (cache.lookup(s.key, mask)) return;
  const bool complete = s.masker.fill(*s.grammar, s.stacks, s.current, mask);
  // Stop tokens exactly where the text is complete, whatever bytes they may have.
  const bool accepting = is_accepting();
  for (const token_id id : vocab.stop_token_ids()) {
    const std::uint32_t bit = std::uint32_t{1} << (id % 32);
    mask[id / 32] = accepting ? (mask[id / 32] | bit) : (mask[id / 32] & ~bit);
  }
  if (complete) cache.insert(s.key, mask);
}

}  // namespace pagedserve::grammar
