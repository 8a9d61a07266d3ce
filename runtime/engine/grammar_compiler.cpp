#include "runtime/engine/grammar_compiler.h"

#include "runtime/grammar/schema_grammar.h"

namespace pagedserve {

grammar_compiler::grammar_compiler(std::shared_ptr<const tokenizer> tok, std::size_t vocab_size,
                                   std::vector<token_id> stop_token_ids, std::size_t cache_capacity)
    : tokenizer_(std::move(tok)),
      vocab_size_(vocab_size),
      stop_token_ids_(std::move(stop_token_ids)),
      cache_capacity_(cache_capacity) {}

result<std::string> grammar_compiler::to_gbnf(const structured_outputs_params& params) {
  using kind = structured_outputs_params::kind;
  switch (params.type) {
    case kind::json:
      return grammar::json_schema_to_gbnf(params.spec);
    case kind::json_object:
      return grammar::json_object_gbnf();
    case kind::regex:
      return grammar::regex_to_gbnf(params.spec);
    case kind::choice:
      return grammar::choice_to_gbnf(params.choice);
    case kind::grammar:
      return params.spec;
  }
  return make_error(error_code::invalid_argument, "unknown structured output kind");
}

// Tokens past the tokenizer's vocabulary (the model's padding rows) have no bytes: never
// allowed.
std::shared_ptr<const grammar::token_vocabulary> grammar_compiler::vocabulary() {
  if (vocabulary_) return vocabulary_;
  std::vector<std::string> bytes(std::max(vocab_size_, tokenizer_->vocab_size()));
  for (std::size_t id = 0; id < tokenizer_->vocab_size(); ++id) {
    bytes[id] = tokenizer_->token_bytes(static_cast<token_id>(id));
  }
  bytes.resize(vocab_size_);
  vocabulary_ = grammar::token_vocabulary::create(std::move(bytes), stop_token_ids_);
  return vocabulary_;
}

result<compiled_grammar_ptr> grammar_compiler::compile(const structured_outputs_params& params) {
  const std::string key = params.cache_key();
  std::lock_guard lock(mutex_);
  if (const auto it = cache_.find(key); it != cache_.end()) {
    recent_.splice(recent_.begin(), recent_, it->second.second);
    return it->second.first;
  }
  result<compiled_grammar_ptr> compiled = [&]() -> result<compiled_grammar_ptr> {
    result<std::string> gbnf = to_gbnf(params);
    if (!gbnf) return gbnf.err();
    return grammar::compile_gbnf(*gbnf, vocabulary());
  }();
  remember(key, compiled);
  return compiled;
}

void grammar_compiler::remember(const std::string& key,
                                const result<compiled_grammar_ptr>& compiled) {
  recent_.push_front(key);
  cache_.emplace(key, std::make_pair(compiled, recent_.begin()));
  while (cache_.size() > cache_capacity_) {
    cache_.erase(recent_.back());
    recent_.pop_back();
  }
}

}  // namespace pagedserve
