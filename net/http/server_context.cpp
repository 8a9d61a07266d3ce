#include "net/http/server_context.h"

#include <spdlog/spdlog.h>

#include <vector>

namespace pagedserve::net {

model_context make_model_context(const engine_model_info& info,
                                 const std::string& served_model_name, const chat_template* chat,
                                 const std::string& reasoning_parser,
                                 const std::string& tool_call_parser,
                                 bool enable_auto_tool_choice) {
  model_context model;
  model.served_model_name = served_model_name.empty() ? info.name : served_model_name;
  model.max_model_len = info.max_model_len;
  model.vocab_size = info.vocab_size;
  model.max_n = info.max_n;
  model.tok = info.tok.get();
  model.template_ = chat;
  model.sampling_defaults = info.sampling_defaults;
  model.reasoning_parser =
      parse_reasoning_parser(reasoning_parser).value_or(reasoning_parser_kind::none);
  model.tool_call_parser = parse_tool_call_parser(tool_call_parser);
  model.enable_auto_tool_choice = enable_auto_tool_choice && model.tool_call_parser.has_value();
  model.pooling = info.declared_pooling.value_or(pooling_type::last);
  model.hidden_size = info.hidden_size;
  model.is_matryoshka = info.is_matryoshka;
  model.matryoshka_dimensions = info.matryoshka_dimensions;
  return model;
}

served_model make_served_model(const server_config& config, const engine_model_info& info,
                               std::optional<chat_template> key_template) {
  served_model out;
  if (key_template) {
    out.chat = std::make_unique<chat_template>(std::move(*key_template));
  } else if (info.tok) {
    auto chat = chat_template::for_tokenizer(*info.tok);
    if (chat) {
      out.chat = std::make_unique<chat_template>(std::move(chat.value()));
    } else {
      spdlog::warn("chat completions disabled: {}", chat.err().message);
    }
  }
  out.context =
      make_model_context(info, config.served_model_name, out.chat.get(), config.reasoning_parser,
                         config.tool_call_parser, config.enable_auto_tool_choice);
  out.context.trust_request_chat_template = config.trust_request_chat_template;
  if (!config.pooling_type.empty()) {  // the key wins over the folder's declaration
    out.context.pooling =
        pooling_type_from_string(config.pooling_type).value_or(out.context.pooling);
  }
  return out;
}

bool session_registry::try_reserve() {
  std::uint32_t open = num_open_.load();
  while (open < max_) {
    if (num_open_.compare_exchange_weak(open, open + 1)) return true;
  }
  return false;
}

void session_registry::release() { num_open_.fetch_sub(1); }

void session_registry::add(const std::shared_ptr<closable_session>& session) {
  std::lock_guard lock(mutex_);
  sessions_[session.get()] = session;
}

void session_registry::remove(const closable_session* session) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session);
}

void session_registry::close_all() {
  std::vector<std::weak_ptr<closable_session>> open;
  {
    std::lock_guard lock(mutex_);
    open.reserve(sessions_.size());
    for (auto& [key, weak] : sessions_) open.push_back(weak);
  }
  for (auto& weak : open) {
    if (auto session = weak.lock()) session->close_for_shutdown();
  }
}

connection_slot& connection_slot::operator=(connection_slot&& other) noexcept {
  if (this != &other) {
    if (registry_ != nullptr) registry_->release();
    registry_ = other.registry_;
    other.registry_ = nullptr;
  }
  return *this;
}

connection_slot::~connection_slot() {
  if (registry_ != nullptr) registry_->release();
}

void call_counter::add() {
  std::lock_guard lock(mutex_);
  ++num_;
}

void call_counter::remove() {
  std::lock_guard lock(mutex_);
  if (--num_ == 0) zero_.notify_all();
}

bool call_counter::wait_zero(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return zero_.wait_until(lock, deadline, [&] { return num_ == 0; });
}

}  // namespace pagedserve::net
