// pythonic: the whole text is a list of calls, `[f(a=1), g()]` (whitespace around the list
// and between its items allowed). Each call goes out whole (name and all its arguments in
// one piece) as soon as its closing parenthesis arrives; a call's literals are not streamed,
// as a Python literal is only JSON once it is complete. A text that is not such a list is
// content; a list that breaks after some calls ends them and its rest is content.

#include <boost/json.hpp>

#include "net/openai/tool_call_python_reader.h"
#include "net/openai/tool_call_scan.h"

namespace pagedserve::net::detail {
namespace {

class pythonic_scanner final : public call_scanner {
 private:
  enum class phase : std::uint8_t { lead, call, separator, trailer, rest };

  bool step(bool at_end, scan_events& out) override {
    switch (phase_) {
      case phase::lead:
        return lead(at_end, out);
      case phase::call:
        return call(at_end, out);
      case phase::separator:
        return separator(at_end);
      case phase::trailer:
        return trailer(at_end);
      case phase::rest:
        return rest(out);
    }
    return false;
  }

  bool fail(scan_events& out) {
    give_up(out);
    phase_ = phase::rest;
    return true;
  }

  bool lead(bool at_end, scan_events& out) {
    const std::size_t space = leading_space();
    if (space == held_.size()) return at_end ? fail(out) : false;
    if (held_[space] != '[') return fail(out);
    consume(space + 1);
    phase_ = phase::call;
    return true;
  }

  bool call(bool at_end, scan_events& out) {
    python_reader reader(held_);
    std::optional<python_call> c = reader.call();
    if (!c) return reader.incomplete() && !at_end ? false : fail(out);
    consume(reader.pos());
    emit(out, scan_event::kind::begin_call, c->name);
    emit(out, scan_event::kind::arguments, boost::json::serialize(c->arguments));
    emit(out, scan_event::kind::end_call, {});
    raw_.clear();
    phase_ = phase::separator;
    return true;
  }

  bool separator(bool at_end) {
    const std::size_t space = leading_space();
    if (space == held_.size()) {
      if (!at_end) return false;
      held_.clear();  // the list was cut after a call: trailing whitespace is dropped
      phase_ = phase::rest;
      return true;
    }
    if (held_[space] == ',') {
      consume(space + 1);
      phase_ = phase::call;
    } else if (held_[space] == ']') {
      held_.erase(0, space + 1);
      phase_ = phase::trailer;
    } else {
      phase_ = phase::rest;
    }
    return true;
  }

  bool trailer(bool at_end) {
    if (leading_space() == held_.size()) {
      if (!at_end) return false;
      held_.clear();
    }
    phase_ = phase::rest;
    return true;
  }

  bool rest(scan_events& out) {
    emit(out, scan_event::kind::content, held_);
    held_.clear();
    return false;
  }

  phase phase_ = phase::lead;
};

}  // namespace

std::unique_ptr<call_scanner> make_pythonic_scanner() {
  return std::make_unique<pythonic_scanner>();
}

}  // namespace pagedserve::net::detail
