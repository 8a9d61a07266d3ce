#pragma once
// grammar_compiler: structured_outputs_params -> a grammar compiled against the served
// model's vocabulary (runtime/grammar), cached by constraint so that the second request with
// a schema pays nothing (vLLM's structured-output manager and xgrammar's compiler cache).
// Failures are cached too: a hostile grammar is refused once, then by lookup.
//
// Compiling runs on the engine's thread at admission (bounded by grammar::compile_limits);
// vLLM compiles asynchronously while the request waits, which matters once compiles take
// longer than a step. Thread-safe.

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/structured_outputs_params.h"
#include "common/result.h"
#include "runtime/grammar/compiled_grammar.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

using compiled_grammar_ptr = std::shared_ptr<const grammar::compiled_grammar>;

class grammar_compiler {
 public:
  // vocab_size: the model's (the logits' width, at least the tokenizer's); stop ids: EOS
  // and the model's other end ids, allowed where a grammar's text is complete.
  grammar_compiler(std::shared_ptr<const tokenizer> tok, std::size_t vocab_size,
                   std::vector<token_id> stop_token_ids, std::size_t cache_capacity = 128);

  [[nodiscard]] result<compiled_grammar_ptr> compile(const structured_outputs_params& params);

  // The GBNF text of a constraint (no compile): invalid_argument or unsupported naming
  // what is wrong.
  [[nodiscard]] static result<std::string> to_gbnf(const structured_outputs_params& params);

 private:
  [[nodiscard]] std::shared_ptr<const grammar::token_vocabulary> vocabulary();
  void remember(const std::string& key, const result<compiled_grammar_ptr>& compiled);

  std::shared_ptr<const tokenizer> tokenizer_;
  std::size_t vocab_size_;
  std::vector<token_id> stop_token_ids_;
  std::size_t cache_capacity_;
  std::mutex mutex_;
  std::shared_ptr<const grammar::token_vocabulary> vocabulary_;  // built at first use
  std::list<std::string> recent_;  // cache keys, most recently used first
  std::unordered_map<std::string,
                     std::pair<result<compiled_grammar_ptr>, std::list<std::string>::iterator>>
      cache_;
};

}  // namespace pagedserve
