#include "net/openai/tool_call_head.h"

#include <boost/json.hpp>

#include "net/openai/tool_call_scan.h"

namespace pagedserve::net::detail {
namespace {

// Reads tokens off the start of a text that may still be growing.
class head_reader {
 public:
  explicit head_reader(std::string_view text) : text_(text) {}

  [[nodiscard]] std::size_t pos() const { return pos_; }

  head_result literal(std::string_view lit) {
    skip_space();
    const std::string_view rest = text_.substr(pos_);
    if (rest.starts_with(lit)) {
      pos_ += lit.size();
      return head_result::matched;
    }
    return lit.starts_with(rest) ? head_result::need_more : head_result::mismatch;
  }

  // Either of two literals.
  head_result either(std::string_view a, std::string_view b) {
    const std::size_t start = pos_;
    const head_result ra = literal(a);
    if (ra == head_result::matched) return ra;
    pos_ = start;
    const head_result rb = literal(b);
    if (rb == head_result::matched) return rb;
    pos_ = start;
    return ra == head_result::need_more || rb == head_result::need_more ? head_result::need_more
                                                                        : head_result::mismatch;
  }

  // A non-empty JSON string, decoded into `out`.
  head_result string(std::string& out) {
    const head_result open = literal("\"");
    if (open != head_result::matched) return open;
    const std::size_t start = pos_ - 1;
    for (std::size_t i = pos_; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        ++i;
      } else if (text_[i] == '"') {
        pos_ = i + 1;
        return decode(text_.substr(start, pos_ - start), out);
      }
    }
    return head_result::need_more;
  }

  // The next byte opens an object (not read).
  head_result object_follows() {
    skip_space();
    if (pos_ == text_.size()) return head_result::need_more;
    return text_[pos_] == '{' ? head_result::matched : head_result::mismatch;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && is_json_space(text_[pos_])) ++pos_;
  }

  static head_result decode(std::string_view quoted, std::string& out) {
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(quoted, ec);
    if (ec || !v.is_string() || v.get_string().empty()) return head_result::mismatch;
    out = v.get_string();
    return head_result::matched;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

call_head match_call_head(std::string_view text) {
  head_reader r(text);
  call_head head;
  const auto fail = [&](head_result why) {
    head.result = why;
    return head;
  };
  head_result step = r.literal("{");
  if (step != head_result::matched) return fail(step);
  if ((step = r.literal("\"name\"")) != head_result::matched) return fail(step);
  if ((step = r.literal(":")) != head_result::matched) return fail(step);
  if ((step = r.string(head.name)) != head_result::matched) return fail(step);
  if ((step = r.literal(",")) != head_result::matched) return fail(step);
  step = r.either("\"arguments\"", "\"parameters\"");
  if (step != head_result::matched) return fail(step);
  if ((step = r.literal(":")) != head_result::matched) return fail(step);
  if ((step = r.object_follows()) != head_result::matched) return fail(step);
  head.result = head_result::matched;
  head.length = r.pos();
  return head;
}

}  // namespace pagedserve::net::detail
