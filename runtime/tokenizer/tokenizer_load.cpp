// tokenizer::load: reads tokenizer.json (every component, or an error naming the one we do not
// support) and tokenizer_config.json (special token names and the chat template).

#include <algorithm>
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "runtime/model/model_limits.h"
#include "runtime/tokenizer/hf_tokenizer.h"
#include "runtime/tokenizer/json_util.h"

namespace pagedserve {

namespace {

// The whole file, once it is known to be a regular file within the size limit (a FIFO, a
// folder or a 100 GB file in its place is refused before anything is read or allocated).
result<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return make_error(error_code::not_found, path.string() + ": not found or not a regular file");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > model_limits::max_tokenizer_file_bytes) {
    return make_error(error_code::corrupt_data,
                      path.string() + ": file of " + (ec ? "unknown size" : std::to_string(size)) +
                          " bytes is above the limit of " +
                          std::to_string(model_limits::max_tokenizer_file_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(error_code::not_found, "cannot open " + path.string());
  std::string data(static_cast<std::size_t>(size), '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (!in) return make_error(error_code::io_error, "cannot read " + path.string());
  return data;
}

result<boost::json::value> parse_json(const std::string& text, const std::filesystem::path& path,
                                      boost::json::storage_ptr storage) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec, std::move(storage));
  if (ec) return make_error(error_code::corrupt_data, path.string() + ": " + ec.message());
  if (!value.is_object()) {
    return make_error(error_code::corrupt_data, path.string() + ": not a JSON object");
  }
  return value;
}

const boost::json::value& field(const boost::json::object& obj, std::string_view key) {
  static const boost::json::value null_value;
  const auto* v = obj.if_contains(key);
  return v != nullptr ? *v : null_value;
}

// A special token name: a string, or an AddedToken object {"content": ...}.
std::optional<std::string> token_name(const boost::json::object& config, std::string_view key) {
  const auto& v = field(config, key);
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_object()) return json_util::get_string(v.get_object(), "content");
  return std::nullopt;
}

// chat_template: a string, or a list of {name, template}; the one named "default".
std::optional<std::string> chat_template_of(const boost::json::object& config) {
  const auto& v = field(config, "chat_template");
  if (v.is_string()) return std::string(v.get_string());
  if (!v.is_array()) return std::nullopt;
  for (const auto& item : v.get_array()) {
    if (!item.is_object()) continue;
    const auto& obj = item.get_object();
    if (json_util::get_string(obj, "name") == "default") {
      return json_util::get_string(obj, "template");
    }
  }
  return std::nullopt;
}

status load_config(const std::filesystem::path& dir, hf_tokenizer_parts& parts) {
  const auto path = dir / "tokenizer_config.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return status::success();
  auto text = read_file(path);
  if (!text) return text.err();
  auto json = parse_json(*text, path, {});
  if (!json) return json.err();
  const auto& config = json->get_object();
  parts.specials.bos_token = token_name(config, "bos_token");
  parts.specials.eos_token = token_name(config, "eos_token");
  parts.specials.pad_token = token_name(config, "pad_token");
  parts.specials.unk_token = token_name(config, "unk_token");
  parts.chat_template = chat_template_of(config);
  return status::success();
}

// The bound on every id of tokenizer.json: its vocabulary entries plus its added tokens (HF's
// vocabulary with added tokens) plus room for holes, within the hard cap; so id-indexed
// tables are sized by the file, not by the largest id it writes (docs/model-folder-limits.md).
std::int64_t token_id_limit(const boost::json::value& model, std::size_t num_added) {
  const boost::json::value* vocab = model.get_object().if_contains("vocab");
  const std::size_t entries =
      vocab != nullptr && vocab->is_object() ? vocab->get_object().size() : 0;
  const std::uint64_t limit = std::uint64_t{entries} + num_added +
                              static_cast<std::uint64_t>(model_limits::max_token_id_holes);
  return static_cast<std::int64_t>(
      std::min(limit, static_cast<std::uint64_t>(model_limits::max_token_id) + 1));
}

status load_components(const boost::json::object& root, hf_tokenizer_parts& parts) {
  const auto& model = field(root, "model");
  if (!model.is_object()) {
    return make_error(error_code::corrupt_data, "no model object");
  }
  const auto& added = field(root, "added_tokens");
  if (!added.is_null() && !added.is_array()) {
    return make_error(error_code::corrupt_data, "added_tokens is not a list");
  }
  const std::size_t num_added = added.is_array() ? added.get_array().size() : 0;
  const std::int64_t id_limit = token_id_limit(model, num_added);
  auto bpe = bpe_model::parse(model.get_object(), id_limit);
  if (!bpe) return bpe.err();
  parts.model = std::move(*bpe);
  auto norm = parse_normalizer(field(root, "normalizer"));
  if (!norm) return norm.err();
  parts.norm = std::move(*norm);
  auto pre = parse_pre_tokenizer(field(root, "pre_tokenizer"));
  if (!pre) return pre.err();
  parts.pre = std::move(*pre);
  auto post = parse_post_processor(field(root, "post_processor"));
  if (!post) return post.err();
  parts.post = std::move(*post);
  auto dec = parse_decoder(field(root, "decoder"));
  if (!dec) return dec.err();
  parts.dec = std::move(*dec);
  if (added.is_array()) {
    auto vocab = added_vocabulary::parse(added.get_array(), parts.norm.get(), id_limit);
    if (!vocab) return vocab.err();
    parts.added = std::move(*vocab);
  }
  return status::success();
}

}  // namespace

result<std::shared_ptr<const tokenizer>> tokenizer::load(const std::filesystem::path& dir) {
  hf_tokenizer_parts parts;
  {
    const auto path = dir / "tokenizer.json";
    auto text = read_file(path);
    if (!text) return text.err();
    // The whole document is dropped once the components are built: one arena for it all.
    auto storage = boost::json::make_shared_resource<boost::json::monotonic_resource>();
    auto json = parse_json(*text, path, storage);
    if (!json) return json.err();
    if (auto s = load_components(json->get_object(), parts); !s) {
      return make_error(s.err().code, path.string() + ": " + s.err().message);
    }
  }
  if (auto s = load_config(dir, parts); !s) return s.err();
  return std::shared_ptr<const tokenizer>(std::make_shared<hf_tokenizer>(std::move(parts)));
}

}  // namespace pagedserve
