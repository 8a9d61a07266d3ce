#include "runtime/tokenizer/pre_tokenizer.h"

#include <boost/json.hpp>

#include "runtime/tokenizer/byte_level.h"
#include "runtime/tokenizer/json_util.h"
#include "runtime/tokenizer/regex.h"
#include "runtime/tokenizer/split_behavior.h"

namespace pagedserve {

namespace {

// The spans of text around and at the matches of re (or of a literal when re is null);
// invert swaps which of them count as matches.
std::vector<split_span> find_spans(const std::string& text, const regex* re,
                                   const std::string& literal, bool invert) {
  std::vector<split_span> spans;
  std::size_t prev = 0;
  auto on_match = [&](std::size_t begin, std::size_t end) {
    if (prev != begin) spans.push_back({prev, begin, invert});
    spans.push_back({begin, end, !invert});
    prev = end;
  };
  if (re != nullptr) {
    re->for_each_match(text, on_match);
  } else if (!literal.empty()) {
    for (std::size_t at = text.find(literal); at != std::string::npos;
         at = text.find(literal, at + literal.size())) {
      on_match(at, at + literal.size());
    }
  }
  if (prev != text.size()) spans.push_back({prev, text.size(), invert});
  return spans;
}

class split_pre_tokenizer final : public pre_tokenizer {
 public:
  split_pre_tokenizer(std::shared_ptr<const regex> re, std::string literal, split_behavior behavior,
                      bool invert)
      : regex_(std::move(re)), literal_(std::move(literal)), behavior_(behavior), invert_(invert) {}

  void pre_tokenize(std::vector<pre_token>& pieces,
                    std::vector<pre_token>& scratch) const override {
    scratch.clear();
    for (const pre_token& piece : pieces) {
      emit_splits(piece, find_spans(piece.text, regex_.get(), literal_, invert_), behavior_,
                  scratch);
    }
    pieces.swap(scratch);
  }

 private:
  std::shared_ptr<const regex> regex_;
  std::string literal_;
  split_behavior behavior_;
  bool invert_;
};

// Optional prefix space, optional GPT-2 regex split, then bytes to the byte-level alphabet.
class byte_level_pre_tokenizer final : public pre_tokenizer {
 public:
  byte_level_pre_tokenizer(bool add_prefix_space, std::shared_ptr<const regex> re)
      : add_prefix_space_(add_prefix_space), regex_(std::move(re)) {}

  void pre_tokenize(std::vector<pre_token>& pieces,
                    std::vector<pre_token>& scratch) const override {
    scratch.clear();
    for (pre_token& piece : pieces) {
      if (add_prefix_space_ && (piece.text.empty() || piece.text.front() != ' ')) {
        piece.text.insert(0, 1, ' ');
      }
      if (regex_) {
        emit_splits(piece, find_spans(piece.text, regex_.get(), "", false),
                    split_behavior::isolated, scratch);
      } else if (!piece.text.empty()) {
        scratch.push_back(std::move(piece));
      }
    }
    pieces.clear();
    for (pre_token& piece : scratch) {
      pre_token mapped{std::string(), piece.at_origin};
      byte_level::encode(piece.text, mapped.text);
      pieces.push_back(std::move(mapped));
    }
  }

 private:
  bool add_prefix_space_;
  std::shared_ptr<const regex> regex_;
};

enum class prepend_scheme { first, always, never };

class metaspace_pre_tokenizer final : public pre_tokenizer {
 public:
  metaspace_pre_tokenizer(std::string replacement, prepend_scheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}

  void pre_tokenize(std::vector<pre_token>& pieces,
                    std::vector<pre_token>& scratch) const override {
    scratch.clear();
    for (pre_token& piece : pieces) {
      replace_spaces(piece.text);
      const bool starts = piece.text.starts_with(replacement_);
      if (!starts && (scheme_ == prepend_scheme::always ||
                      (scheme_ == prepend_scheme::first && piece.at_origin))) {
        piece.text.insert(0, replacement_);
      }
      if (split_) {
        emit_splits(piece, find_spans(piece.text, nullptr, replacement_, false),
                    split_behavior::merged_with_next, scratch);
      } else if (!piece.text.empty()) {
        scratch.push_back(std::move(piece));
      }
    }
    pieces.swap(scratch);
  }

 private:
  void replace_spaces(std::string& text) const {
    if (text.find(' ') == std::string::npos) return;
    std::string out;
    for (const char c : text) {
      if (c == ' ') {
        out += replacement_;
      } else {
        out += c;
      }
    }
    text = std::move(out);
  }

  std::string replacement_;
  prepend_scheme scheme_;
  bool split_;
};

class sequence_pre_tokenizer final : public pre_tokenizer {
 public:
  explicit sequence_pre_tokenizer(std::vector<std::unique_ptr<pre_tokenizer>> steps)
      : steps_(std::move(steps)) {}
  void pre_tokenize(std::vector<pre_token>& pieces,
                    std::vector<pre_token>& scratch) const override {
    for (const auto& step : steps_) step->pre_tokenize(pieces, scratch);
  }

 private:
  std::vector<std::unique_ptr<pre_tokenizer>> steps_;
};

result<split_behavior> parse_behavior(const boost::json::object& obj) {
  const std::string name = json_util::get_string(obj, "behavior").value_or("Isolated");
  if (name == "Removed") return split_behavior::removed;
  if (name == "Isolated") return split_behavior::isolated;
  if (name == "MergedWithPrevious") return split_behavior::merged_with_previous;
  if (name == "MergedWithNext") return split_behavior::merged_with_next;
  if (name == "Contiguous") return split_behavior::contiguous;
  return make_error(error_code::unsupported, "unsupported Split behavior '" + name + "'");
}

result<std::unique_ptr<pre_tokenizer>> parse_split(const boost::json::object& obj) {
  auto pattern = json_util::get_pattern(obj, "pattern");
  if (!pattern) return pattern.err();
  auto behavior = parse_behavior(obj);
  if (!behavior) return behavior.err();
  const bool invert = json_util::get_bool(obj, "invert", false);
  std::shared_ptr<const regex> re;
  std::string literal;
  if (pattern->is_regex) {
    auto compiled = regex::compile(pattern->text);
    if (!compiled) return compiled.err();
    re = std::move(*compiled);
  } else {
    literal = pattern->text;
  }
  return std::unique_ptr<pre_tokenizer>(
      std::make_unique<split_pre_tokenizer>(std::move(re), literal, *behavior, invert));
}

result<std::unique_ptr<pre_tokenizer>> parse_byte_level(const boost::json::object& obj) {
  std::shared_ptr<const regex> re;
  if (json_util::get_bool(obj, "use_regex", true)) {
    auto compiled = regex::compile(byte_level::gpt2_pattern);
    if (!compiled) return compiled.err();
    re = std::move(*compiled);
  }
  return std::unique_ptr<pre_tokenizer>(std::make_unique<byte_level_pre_tokenizer>(
      json_util::get_bool(obj, "add_prefix_space", true), std::move(re)));
}

result<std::unique_ptr<pre_tokenizer>> parse_metaspace(const boost::json::object& obj) {
  const std::string replacement = json_util::get_string(obj, "replacement").value_or("\u2581");
  prepend_scheme scheme = json_util::get_bool(obj, "add_prefix_space", true)
                              ? prepend_scheme::always
                              : prepend_scheme::never;
  if (auto name = json_util::get_string(obj, "prepend_scheme")) {
    if (*name == "first") {
      scheme = prepend_scheme::first;
    } else if (*name == "always") {
      scheme = prepend_scheme::always;
    } else if (*name == "never") {
      scheme = prepend_scheme::never;
    } else {
      return make_error(error_code::unsupported,
                        "unsupported Metaspace prepend_scheme '" + *name + "'");
    }
  }
  return std::unique_ptr<pre_tokenizer>(std::make_unique<metaspace_pre_tokenizer>(
      replacement, scheme, json_util::get_bool(obj, "split", true)));
}

}  // namespace

result<std::unique_ptr<pre_tokenizer>> parse_pre_tokenizer(const boost::json::value& json) {
  if (json.is_null()) return std::unique_ptr<pre_tokenizer>();
  if (!json.is_object()) {
    return make_error(error_code::corrupt_data, "pre_tokenizer is not an object");
  }
  const auto& obj = json.get_object();
  const std::string type = json_util::type_of(obj);
  if (type == "Split") return parse_split(obj);
  if (type == "ByteLevel") return parse_byte_level(obj);
  if (type == "Metaspace") return parse_metaspace(obj);
  if (type == "Sequence") {
    auto steps =
        json_util::parse_sequence_steps<pre_tokenizer>(obj, "pretokenizers", parse_pre_tokenizer);
    if (!steps) return steps.err();
    return std::unique_ptr<pre_tokenizer>(
        std::make_unique<sequence_pre_tokenizer>(std::move(*steps)));
  }
  return json_util::unsupported("pre_tokenizer", type);
}

}  // namespace pagedserve
