#pragma once
// The served model the OpenAI tests parse against: the real Llama-3 tokenizer and its chat
// template (loaded once), a small context so length limits are easy to reach, and helpers
// that make each test step one line.

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "net/openai/api_request.h"
#include "runtime/chat/chat_template.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"

namespace pagedserve::net::testing {

inline constexpr std::uint32_t k_test_max_model_len = 256;
inline constexpr std::uint32_t k_test_max_n = 4;
inline constexpr const char* k_test_model = "llama-test";

struct served_model {
  std::shared_ptr<const tokenizer> tok;
  std::unique_ptr<chat_template> tmpl;
  model_context context;
};

// The tokenizer and chat template of tests/data/tokenizers/<family>, served with the test
// limits (max_model_len 256).
inline served_model load_served_model(const char* family) {
  served_model m;
  auto tok = tokenizer::load(pagedserve::testing::tokenizers_dir() / family);
  if (!tok) {
    ADD_FAILURE() << tok.err().message;
    return m;
  }
  m.tok = std::move(tok.value());
  auto tmpl = chat_template::for_tokenizer(*m.tok);
  if (!tmpl) {
    ADD_FAILURE() << tmpl.err().message;
    return m;
  }
  m.tmpl = std::make_unique<chat_template>(std::move(tmpl.value()));
  m.context.served_model_name = k_test_model;
  m.context.max_model_len = k_test_max_model_len;
  m.context.vocab_size = static_cast<std::uint32_t>(m.tok->vocab_size());
  m.context.max_n = k_test_max_n;
  m.context.tok = m.tok.get();
  m.context.template_ = m.tmpl.get();
  return m;
}

inline const served_model& llama3() {
  static const served_model model = load_served_model("llama3");
  return model;
}

// Concatenation without `"literal" + std::string` (GCC 12 reports false -Wrestrict errors
// inside that operator+ at -O3, GCC bug 105329).
inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const std::string_view part : parts) out.append(part);
  return out;
}

inline parse_outcome parse(api_kind kind, const std::string& body,
                           const model_context& model = llama3().context) {
  const boost::json::value v = boost::json::parse(body);
  return kind == api_kind::completion ? parse_completion_request(v, model)
                                      : parse_chat_request(v, model);
}

// The parsed request; fails the test (and returns an empty one) on an error.
inline api_request parse_ok(api_kind kind, const std::string& body,
                            const model_context& model = llama3().context) {
  parse_outcome out = parse(kind, body, model);
  if (const auto* err = std::get_if<api_error>(&out)) {
    ADD_FAILURE() << "unexpected " << err->status << ": " << err->message << "\nbody: " << body;
    return {};
  }
  return std::get<api_request>(std::move(out));
}

}  // namespace pagedserve::net::testing
