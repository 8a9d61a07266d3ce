#include "runtime/tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <vector>

#include "runtime/tokenizer/json_util.h"
#include "runtime/tokenizer/regex.h"

namespace pagedserve {

namespace {

bool is_ascii(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// NFC, NFD, NFKC, NFKD through utf8proc. ASCII text is already in every normal form.
class unicode_normalizer final : public normalizer {
 public:
  explicit unicode_normalizer(int options) : options_(options) {}
  void normalize(std::string& text) const override {
    if (text.empty() || is_ascii(text)) return;
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out,
                                            static_cast<utf8proc_option_t>(options_));
    if (n >= 0) text.assign(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
    std::free(out);
  }

 private:
  int options_;
};

class prepend_normalizer final : public normalizer {
 public:
  explicit prepend_normalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class replace_normalizer final : public normalizer {
 public:
  replace_normalizer(std::string literal, std::shared_ptr<const regex> re, std::string content)
      : literal_(std::move(literal)), regex_(std::move(re)), content_(std::move(content)) {}

  void normalize(std::string& text) const override {
    std::string out;
    std::size_t last = 0;
    auto on_match = [&](std::size_t begin, std::size_t end) {
      out.append(text, last, begin - last);
      out += content_;
      last = end;
    };
    if (regex_) {
      regex_->for_each_match(text, on_match);
    } else {
      if (literal_.empty()) return;
      for (std::size_t at = text.find(literal_); at != std::string::npos;
           at = text.find(literal_, at + literal_.size())) {
        on_match(at, at + literal_.size());
      }
    }
    if (last == 0 && out.empty()) return;
    out.append(text, last, std::string::npos);
    text = std::move(out);
  }

 private:
  std::string literal_;
  std::shared_ptr<const regex> regex_;
  std::string content_;
};

class sequence_normalizer final : public normalizer {
 public:
  explicit sequence_normalizer(std::vector<std::unique_ptr<normalizer>> steps)
      : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& step : steps_) step->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<normalizer>> steps_;
};

result<std::unique_ptr<normalizer>> parse_replace(const boost::json::object& obj) {
  auto pattern = json_util::get_pattern(obj, "pattern");
  if (!pattern) return pattern.err();
  const std::string content = json_util::get_string(obj, "content").value_or("");
  if (!pattern->is_regex) {
    return std::unique_ptr<normalizer>(
        std::make_unique<replace_normalizer>(pattern->text, nullptr, content));
  }
  auto re = regex::compile(pattern->text);
  if (!re) return re.err();
  return std::unique_ptr<normalizer>(
      std::make_unique<replace_normalizer>("", std::move(*re), content));
}

}  // namespace

result<std::unique_ptr<normalizer>> parse_normalizer(const boost::json::value& json) {
  if (json.is_null()) return std::unique_ptr<normalizer>();
  if (!json.is_object()) {
    return make_error(error_code::corrupt_data, "normalizer is not an object");
  }
  const auto& obj = json.get_object();
  const std::string type = json_util::type_of(obj);
  constexpr int stable = UTF8PROC_STABLE;
  if (type == "NFC")
    return std::unique_ptr<normalizer>(
        std::make_unique<unicode_normalizer>(stable | UTF8PROC_COMPOSE));
  if (type == "NFD")
    return std::unique_ptr<normalizer>(
        std::make_unique<unicode_normalizer>(stable | UTF8PROC_DECOMPOSE));
  if (type == "NFKC")
    return std::unique_ptr<normalizer>(
        std::make_unique<unicode_normalizer>(stable | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
  if (type == "NFKD")
    return std::unique_ptr<normalizer>(
        std::make_unique<unicode_normalizer>(stable | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT));
  if (type == "Prepend") {
    return std::unique_ptr<normalizer>(
        std::make_unique<prepend_normalizer>(json_util::get_string(obj, "prepend").value_or("")));
  }
  if (type == "Replace") return parse_replace(obj);
  if (type == "Sequence") {
    auto steps = json_util::parse_sequence_steps<normalizer>(obj, "normalizers", parse_normalizer);
    if (!steps) return steps.err();
    return std::unique_ptr<normalizer>(std::make_unique<sequence_normalizer>(std::move(*steps)));
  }
  return json_util::unsupported("normalizer", type);
}

}  // namespace pagedserve
