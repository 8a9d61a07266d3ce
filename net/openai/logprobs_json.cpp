#include "net/openai/logprobs_json.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <span>

namespace pagedserve::net {
namespace {

std::size_t count_code_points(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;  // not a continuation byte
  }
  return n;
}

boost::json::array utf8_bytes(std::string_view text) {
  boost::json::array bytes;
  bytes.reserve(text.size());
  for (const char c : text) bytes.emplace_back(static_cast<unsigned char>(c));
  return bytes;
}

boost::json::object token_logprob_json(token_id id, float logprob, const tokenizer* tok) {
  const std::string text = token_text(tok, id);
  boost::json::object entry;
  entry["token"] = text;
  entry["logprob"] = json_logprob(logprob);
  entry["bytes"] = utf8_bytes(text);
  return entry;
}

}  // namespace

std::string token_text(const tokenizer* tok, token_id id) {
  if (tok == nullptr) return "token_id:" + std::to_string(id);
  const token_id ids[1] = {id};
  return tok->decode(std::span<const token_id>(ids), /*skip_special_tokens=*/false);
}

// The shortest decimal of the float, read back as a double: -0.1f is sent as -0.1, not as
// -0.10000000149011612.
double json_logprob(float logprob) {
  if (!std::isfinite(logprob)) return k_min_json_logprob;
  if (logprob < k_min_json_logprob) return k_min_json_logprob;
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer - 1, logprob);
  if (ec != std::errc()) return logprob;
  *end = '\0';
  return std::strtod(buffer, nullptr);
}

void completion_logprobs::append(const chunk_logprob& lp, const tokenizer* tok) {
  const std::string text = token_text(tok, lp.token);
  text_offset_.emplace_back(next_offset_);
  next_offset_ += count_code_points(text);
  token_logprobs_.emplace_back(json_logprob(lp.logprob));
  boost::json::object top;
  for (const token_logprob& alt : lp.top) {
    std::string alt_text = token_text(tok, alt.token);
    if (!top.contains(alt_text)) top[alt_text] = json_logprob(alt.logprob);
  }
  if (!top.contains(text)) top[text] = json_logprob(lp.logprob);
  top_logprobs_.emplace_back(std::move(top));
  tokens_.emplace_back(text);
}

void completion_logprobs::append_unscored(token_id id, const tokenizer* tok) {
  const std::string text = token_text(tok, id);
  text_offset_.emplace_back(next_offset_);
  next_offset_ += count_code_points(text);
  token_logprobs_.emplace_back(nullptr);
  top_logprobs_.emplace_back(nullptr);
  tokens_.emplace_back(text);
}

boost::json::object completion_logprobs::take() {
  boost::json::object out;
  out["tokens"] = std::move(tokens_);
  out["token_logprobs"] = std::move(token_logprobs_);
  out["top_logprobs"] = std::move(top_logprobs_);
  out["text_offset"] = std::move(text_offset_);
  tokens_ = {};
  token_logprobs_ = {};
  top_logprobs_ = {};
  text_offset_ = {};
  return out;
}

boost::json::object chat_logprob_entry(const chunk_logprob& lp, const tokenizer* tok) {
  boost::json::object entry = token_logprob_json(lp.token, lp.logprob, tok);
  boost::json::array top;
  top.reserve(lp.top.size());
  for (const token_logprob& alt : lp.top) {
    top.emplace_back(token_logprob_json(alt.token, alt.logprob, tok));
  }
  entry["top_logprobs"] = std::move(top);
  return entry;
}

}  // namespace pagedserve::net
