// Global functions of the environment transformers renders chat templates in: Jinja's
// range/namespace/dict plus transformers' raise_exception and strftime_now.

#include "runtime/chat/jinja/globals.h"

#include <array>
#include <ctime>

#include "runtime/chat/jinja/format.h"

namespace pagedserve::jinja {
namespace {

value range(call_args& a, const render_limits& limits) {
  std::int64_t start = 0;
  std::int64_t stop = 0;
  std::int64_t step = 1;
  auto int_at = [&](std::size_t i) {
    const value& v = a.positional[i];
    if (!v.is_int() && !v.is_bool()) throw template_error("range() arguments must be integers");
    return v.to_int();
  };
  if (a.positional.size() == 1) {
    stop = int_at(0);
  } else if (a.positional.size() == 2 || a.positional.size() == 3) {
    start = int_at(0);
    stop = int_at(1);
    if (a.positional.size() == 3) step = int_at(2);
  } else {
    throw template_error("range expected 1 to 3 arguments");
  }
  if (step == 0) throw template_error("range() arg 3 must not be zero");
  std::vector<value> items;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop;) {
    if (items.size() >= limits.max_items) throw template_error("range too large");
    items.emplace_back(i);
    if (__builtin_add_overflow(i, step, &i)) break;
  }
  return value::list(std::move(items));
}

// namespace(...) and dict(...): an optional mapping, then keyword arguments.
value make_mapping(call_args& a, bool is_namespace) {
  auto d = std::make_shared<dict_object>();
  d->is_namespace = is_namespace;
  if (a.positional.size() > 1) throw template_error("expected at most 1 positional argument");
  if (!a.positional.empty()) {
    const value& init = a.positional[0];
    if (!init.is_dict()) throw template_error("cannot build a mapping from " + type_name(init));
    for (const auto& [k, v] : init.as_dict()->entries) d->set(k, v);
  }
  for (auto& [k, v] : a.keyword) d->set(k, v);
  return value(std::move(d));
}

value strftime_now(call_args& a) {
  const value& fmt = a.positional.empty() ? value() : a.positional[0];
  if (!fmt.is_string()) throw template_error("strftime_now() argument must be str");
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::array<char, 512> buf{};
  const std::size_t n = std::strftime(buf.data(), buf.size(), fmt.as_string().c_str(), &local);
  return value(std::string(buf.data(), n));
}

}  // namespace

dict_ptr make_globals(const render_limits& limits) {
  auto g = std::make_shared<dict_object>();
  g->set("range", value::function("range", [&limits](call_args& a) { return range(a, limits); }));
  g->set("namespace",
         value::function("namespace", [](call_args& a) { return make_mapping(a, true); }));
  g->set("dict", value::function("dict", [](call_args& a) { return make_mapping(a, false); }));
  g->set("raise_exception", value::function("raise_exception", [](call_args& a) -> value {
           throw template_error(a.positional.empty() ? std::string() : python_str(a.positional[0]));
         }));
  g->set("strftime_now", value::function("strftime_now", strftime_now));
  return g;
}

}  // namespace pagedserve::jinja
