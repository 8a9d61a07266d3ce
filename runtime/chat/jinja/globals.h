#pragma once
// The global functions every chat template can call (range, namespace, dict,
// raise_exception, strftime_now). `limits` must outlive the returned globals.

#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/value.h"

namespace pagedserve::jinja {

[[nodiscard]] dict_ptr make_globals(const render_limits& limits);

}  // namespace pagedserve::jinja
