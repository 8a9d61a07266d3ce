#pragma once
// grammar_matcher: one sequence's position in a compiled grammar (compiled_grammar.h). Each
// step the sampler asks for the bitmask of tokens that may come next, and the matcher then
// accepts the token sampled. Stop tokens are allowed exactly where the text so far is a
// complete sentence of the grammar; once the text can no longer be extended, only they are.
// Not thread-safe (one per sequence); cheap to create.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "common/types.h"
#include "runtime/grammar/compiled_grammar.h"

namespace pagedserve::grammar {

class grammar_matcher {
 public:
  explicit grammar_matcher(std::shared_ptr<const compiled_grammar> grammar);
  ~grammar_matcher();
  grammar_matcher(grammar_matcher&&) noexcept;
  grammar_matcher& operator=(grammar_matcher&&) noexcept;

  // Advances by one token. False, with the state unchanged, when the grammar does not allow
  // it. A stop token is accepted where is_accepting(); the matcher is then terminated.
  [[nodiscard]] bool accept_token(token_id id);
  // Advances by raw bytes (tests, and forced text). False, state unchanged, if not allowed.
  [[nodiscard]] bool accept_bytes(std::string_view bytes);

  // Writes the tokens allowed next: bit (t % 32) of word t / 32 is set when token t may be
  // sampled. mask.size() == vocabulary().bitmask_words(). Bits past the vocabulary are 0.
  void fill_next_token_bitmask(std::span<std::uint32_t> mask);

  // The text accepted so far is a complete sentence of the grammar (stop tokens allowed).
  [[nodiscard]] bool is_accepting() const;
  // A stop token was accepted, or the text is complete and nothing can extend it.
  [[nodiscard]] bool is_terminated() const;

  [[nodiscard]] const token_vocabulary& vocabulary() const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace pagedserve::grammar
