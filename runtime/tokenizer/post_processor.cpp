#include "runtime/tokenizer/post_processor.h"

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "runtime/model/model_limits.h"
#include "runtime/tokenizer/json_util.h"

namespace pagedserve {

namespace {

class nothing_post_processor final : public post_processor {
 public:
  void process(std::vector<token_id>& /*ids*/) const override {}
};

// The "single" template: each item is the sequence itself or the ids of a special token.
class template_post_processor final : public post_processor {
 public:
  // nullopt stands for the sequence ($A).
  explicit template_post_processor(std::vector<std::optional<std::vector<token_id>>> items)
      : items_(std::move(items)) {}
  void process(std::vector<token_id>& ids) const override {
    std::vector<token_id> out;
    out.reserve(ids.size() + items_.size());
    for (const auto& item : items_) {
      if (item) {
        out.insert(out.end(), item->begin(), item->end());
      } else {
        out.insert(out.end(), ids.begin(), ids.end());
      }
    }
    ids = std::move(out);
  }

 private:
  std::vector<std::optional<std::vector<token_id>>> items_;
};

class sequence_post_processor final : public post_processor {
 public:
  explicit sequence_post_processor(std::vector<std::unique_ptr<post_processor>> steps)
      : steps_(std::move(steps)) {}
  void process(std::vector<token_id>& ids) const override {
    for (const auto& step : steps_) step->process(ids);
  }

 private:
  std::vector<std::unique_ptr<post_processor>> steps_;
};

result<std::vector<token_id>> special_ids(const boost::json::object& specials,
                                          std::string_view name) {
  const auto* entry = specials.if_contains(name);
  const auto* ids =
      entry != nullptr && entry->is_object() ? entry->get_object().if_contains("ids") : nullptr;
  if (ids == nullptr || !ids->is_array()) {
    return make_error(error_code::corrupt_data,
                      "TemplateProcessing special '" + std::string(name) + "' has no ids");
  }
  std::vector<token_id> out;
  for (const auto& id : ids->get_array()) {
    if (!id.is_int64() || id.get_int64() < 0 || id.get_int64() > model_limits::max_token_id) {
      return make_error(error_code::corrupt_data,
                        "TemplateProcessing special '" + std::string(name).substr(0, 64) +
                            "' has id " + boost::json::serialize(id) + ", not a token id");
    }
    out.push_back(static_cast<token_id>(id.get_int64()));
  }
  return out;
}

result<std::unique_ptr<post_processor>> parse_template(const boost::json::object& obj) {
  const auto* single = obj.if_contains("single");
  const auto* specials = obj.if_contains("special_tokens");
  if (single == nullptr || !single->is_array() || specials == nullptr || !specials->is_object()) {
    return make_error(error_code::corrupt_data, "malformed TemplateProcessing");
  }
  std::vector<std::optional<std::vector<token_id>>> items;
  for (const auto& piece : single->get_array()) {
    const auto* obj_piece = piece.if_object();
    if (obj_piece != nullptr && obj_piece->contains("Sequence")) {
      items.emplace_back(std::nullopt);
      continue;
    }
    const auto* special = obj_piece != nullptr ? obj_piece->if_contains("SpecialToken") : nullptr;
    const auto* id = special != nullptr && special->is_object()
                         ? special->get_object().if_contains("id")
                         : nullptr;
    if (id == nullptr || !id->is_string()) {
      return make_error(error_code::corrupt_data, "bad TemplateProcessing item");
    }
    auto ids = special_ids(specials->get_object(), id->get_string());
    if (!ids) return ids.err();
    items.emplace_back(std::move(*ids));
  }
  return std::unique_ptr<post_processor>(
      std::make_unique<template_post_processor>(std::move(items)));
}

}  // namespace

result<std::unique_ptr<post_processor>> parse_post_processor(const boost::json::value& json) {
  if (json.is_null()) return std::unique_ptr<post_processor>();
  if (!json.is_object()) {
    return make_error(error_code::corrupt_data, "post_processor is not an object");
  }
  const auto& obj = json.get_object();
  const std::string type = json_util::type_of(obj);
  if (type == "ByteLevel") {
    return std::unique_ptr<post_processor>(std::make_unique<nothing_post_processor>());
  }
  if (type == "TemplateProcessing") return parse_template(obj);
  if (type == "Sequence") {
    auto steps =
        json_util::parse_sequence_steps<post_processor>(obj, "processors", parse_post_processor);
    if (!steps) return steps.err();
    return std::unique_ptr<post_processor>(
        std::make_unique<sequence_post_processor>(std::move(*steps)));
  }
  return json_util::unsupported("post_processor", type);
}

}  // namespace pagedserve
