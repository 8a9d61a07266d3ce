#pragma once
// compiled_template: a Jinja template parsed and checked once (syntax, unknown filters and
// tests, break/continue outside a loop), then rendered any number of times, concurrently.

#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "runtime/chat/jinja/ast.h"
#include "runtime/chat/jinja/builtins.h"

namespace pagedserve::jinja {

class compiled_template {
 public:
  [[nodiscard]] static result<compiled_template> compile(std::string_view source);

  // Renders with `vars` as the top-level variables. Errors (raise_exception, undefined
  // misuse, type errors, limits) come back as values, message first.
  [[nodiscard]] result<std::string> render(dict_ptr vars, const render_limits& limits = {}) const;

 private:
  explicit compiled_template(std::shared_ptr<const body> root) : root_(std::move(root)) {}
  std::shared_ptr<const body> root_;
};

}  // namespace pagedserve::jinja
