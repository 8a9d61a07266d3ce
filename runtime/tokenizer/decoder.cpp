#include "runtime/tokenizer/decoder.h"

#include <boost/json.hpp>

#include "runtime/tokenizer/byte_level.h"
#include "runtime/tokenizer/json_util.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

namespace {

// Token strings back to bytes through the byte-level alphabet (tokens with characters outside
// it, e.g. some added tokens, keep their own bytes); the whole is then read as lossy UTF-8.
class byte_level_decoder final : public decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string bytes;
    for (const std::string& token : tokens) {
      if (!byte_level::decode_token(token, bytes)) bytes += token;
    }
    tokens.assign(1, utf8::sanitize(bytes));
  }
  void to_raw_bytes(std::string& token) const override {
    std::string bytes;
    if (byte_level::decode_token(token, bytes)) token = std::move(bytes);
  }
};

class replace_decoder final : public decoder {
 public:
  replace_decoder(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) to_raw_bytes(token);
  }
  void to_raw_bytes(std::string& token) const override {
    if (pattern_.empty()) return;
    std::string out;
    std::size_t last = 0;
    for (std::size_t at = token.find(pattern_); at != std::string::npos;
         at = token.find(pattern_, at + pattern_.size())) {
      out.append(token, last, at - last);
      out += content_;
      last = at + pattern_.size();
    }
    if (last == 0) return;
    out.append(token, last, std::string::npos);
    token = std::move(out);
  }

 private:
  std::string pattern_;
  std::string content_;
};

class byte_fallback_decoder final : public decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    std::string run;
    auto flush = [&] {
      if (run.empty()) return;
      if (utf8::is_valid(run)) {
        out.push_back(run);
      } else {
        for (std::size_t i = 0; i < run.size(); ++i) out.emplace_back(utf8::replacement_char);
      }
      run.clear();
    };
    for (std::string& token : tokens) {
      if (const auto b = byte_fallback_value(token)) {
        run += static_cast<char>(*b);
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
  }
  [[nodiscard]] bool has_byte_fallback() const override { return true; }
  void to_raw_bytes(std::string& token) const override {
    if (const auto b = byte_fallback_value(token)) token.assign(1, static_cast<char>(*b));
  }
};

class fuse_decoder final : public decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const std::string& token : tokens) all += token;
    tokens.assign(1, std::move(all));
  }
};

// Removes up to `start` leading and `stop` trailing copies of one character from each token.
class strip_decoder final : public decoder {
 public:
  strip_decoder(std::string content, std::size_t start, std::size_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    if (content_.empty()) return;
    for (std::string& token : tokens) {
      std::size_t begin = 0;
      for (std::size_t i = 0; i < start_ && token.compare(begin, content_.size(), content_) == 0;
           ++i) {
        begin += content_.size();
      }
      std::size_t end = token.size();
      for (std::size_t i = 0; i < stop_ && end >= begin + content_.size() &&
                              token.compare(end - content_.size(), content_.size(), content_) == 0;
           ++i) {
        end -= content_.size();
      }
      token = token.substr(begin, end - begin);
    }
  }

 private:
  std::string content_;
  std::size_t start_;
  std::size_t stop_;
};

// The replacement character becomes a space, except in the first token when a prefix space
// was prepended at encode time.
class metaspace_decoder final : public decoder {
 public:
  metaspace_decoder(std::string replacement, bool drop_first)
      : replacement_(std::move(replacement)), drop_first_(drop_first) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& token = tokens[i];
      const std::string_view with = (i == 0 && drop_first_) ? "" : " ";
      std::string out;
      std::size_t last = 0;
      for (std::size_t at = token.find(replacement_); at != std::string::npos;
           at = token.find(replacement_, at + replacement_.size())) {
        out.append(token, last, at - last);
        out += with;
        last = at + replacement_.size();
      }
      out.append(token, last, std::string::npos);
      token = std::move(out);
    }
  }
  void to_raw_bytes(std::string& token) const override {
    // As the second of two tokens: never the dropped first space.
    std::vector<std::string> two{std::string(), std::move(token)};
    decode_chain(two);
    token = std::move(two[1]);
  }

 private:
  std::string replacement_;
  bool drop_first_;
};

class sequence_decoder final : public decoder {
 public:
  explicit sequence_decoder(std::vector<std::unique_ptr<decoder>> steps)
      : steps_(std::move(steps)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& step : steps_) step->decode_chain(tokens);
  }
  void to_raw_bytes(std::string& token) const override {
    for (const auto& step : steps_) step->to_raw_bytes(token);
  }
  [[nodiscard]] bool has_byte_fallback() const override {
    for (const auto& step : steps_) {
      if (step->has_byte_fallback()) return true;
    }
    return false;
  }

 private:
  std::vector<std::unique_ptr<decoder>> steps_;
};

std::size_t get_count(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_int64() && v->get_int64() > 0
             ? static_cast<std::size_t>(v->get_int64())
             : 0;
}

result<std::unique_ptr<decoder>> parse_replace(const boost::json::object& obj) {
  auto pattern = json_util::get_pattern(obj, "pattern");
  if (!pattern) return pattern.err();
  if (pattern->is_regex) {
    return make_error(error_code::unsupported, "unsupported decoder Replace with a Regex pattern");
  }
  return std::unique_ptr<decoder>(std::make_unique<replace_decoder>(
      pattern->text, json_util::get_string(obj, "content").value_or("")));
}

result<std::unique_ptr<decoder>> parse_metaspace(const boost::json::object& obj) {
  bool drop_first = json_util::get_bool(obj, "add_prefix_space", true);
  if (auto scheme = json_util::get_string(obj, "prepend_scheme")) drop_first = *scheme != "never";
  return std::unique_ptr<decoder>(std::make_unique<metaspace_decoder>(
      json_util::get_string(obj, "replacement").value_or("\u2581"), drop_first));
}

}  // namespace

std::optional<unsigned char> byte_fallback_value(std::string_view token) {
  if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return std::nullopt;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int hi = hex(token[3]);
  const int lo = hex(token[4]);
  if (hi < 0 || lo < 0) return std::nullopt;
  return static_cast<unsigned char>(hi * 16 + lo);
}

result<std::unique_ptr<decoder>> parse_decoder(const boost::json::value& json) {
  if (json.is_null()) return std::unique_ptr<decoder>();
  if (!json.is_object()) {
    return make_error(error_code::corrupt_data, "decoder is not an object");
  }
  const auto& obj = json.get_object();
  const std::string type = json_util::type_of(obj);
  if (type == "ByteLevel") return std::unique_ptr<decoder>(std::make_unique<byte_level_decoder>());
  if (type == "Replace") return parse_replace(obj);
  if (type == "ByteFallback") {
    return std::unique_ptr<decoder>(std::make_unique<byte_fallback_decoder>());
  }
  if (type == "Fuse") return std::unique_ptr<decoder>(std::make_unique<fuse_decoder>());
  if (type == "Strip") {
    return std::unique_ptr<decoder>(
        std::make_unique<strip_decoder>(json_util::get_string(obj, "content").value_or(" "),
                                        get_count(obj, "start"), get_count(obj, "stop")));
  }
  if (type == "Metaspace") return parse_metaspace(obj);
  if (type == "Sequence") {
    auto steps = json_util::parse_sequence_steps<decoder>(obj, "decoders", parse_decoder);
    if (!steps) return steps.err();
    return std::unique_ptr<decoder>(std::make_unique<sequence_decoder>(std::move(*steps)));
  }
  return json_util::unsupported("decoder", type);
}

}  // namespace pagedserve
