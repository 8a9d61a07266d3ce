#include "runtime/chat/jinja/template.h"

#include "runtime/chat/jinja/format.h"
#include "runtime/chat/jinja/globals.h"
#include "runtime/chat/jinja/interpreter.h"
#include "runtime/chat/jinja/lexer.h"
#include "runtime/chat/jinja/parser.h"

namespace pagedserve::jinja {
namespace {

// Checks jinja2 performs when compiling: filters and tests must exist, and break/continue
// must sit inside a loop (a macro body starts outside any loop).
class validator {
 public:
  std::string error;

  void check(const body& b, bool in_loop) {
    for (const stmt_ptr& s : b) check(*s, in_loop);
  }

 private:
  void fail(int line, const std::string& what) {
    if (error.empty()) error = "chat template error (line " + std::to_string(line) + "): " + what;
  }

  void check(const stmt& s, bool in_loop) {
    if ((s.kind == stmt_kind::loop_break || s.kind == stmt_kind::loop_continue) && !in_loop) {
      fail(s.line, "'break' or 'continue' outside of a loop");
    }
    check(s.expression.get());
    check(s.condition.get());
    for (const auto& p : s.params) check(p.default_value.get());
    for (const auto& [cond, branch] : s.branches) {
      check(cond.get());
      check(branch, in_loop);
    }
    const bool body_in_loop =
        s.kind == stmt_kind::for_loop || (in_loop && s.kind != stmt_kind::macro);
    check(s.children, body_in_loop);
    check(s.else_body, in_loop);
  }

  void check(const expr* e) {
    if (e == nullptr) return;
    if (e->kind == expr_kind::filter && !has_filter(e->name))
      fail(e->line, "no filter named '" + e->name + "'");
    if (e->kind == expr_kind::test && !has_test(e->name))
      fail(e->line, "no test named '" + e->name + "'");
    for (const expr_ptr& a : e->args) check(a.get());
    for (const auto& [k, v] : e->kwargs) check(v.get());
  }
};

}  // namespace

result<compiled_template> compiled_template::compile(std::string_view source) {
  auto tokens = lex(source);
  if (!tokens) return tokens.err();
  auto root = parse(std::move(tokens.value()));
  if (!root) return root.err();
  validator v;
  v.check(*root, false);
  if (!v.error.empty()) return make_error(error_code::invalid_argument, v.error);
  return compiled_template(std::make_shared<const body>(std::move(root.value())));
}

result<std::string> compiled_template::render(dict_ptr vars, const render_limits& limits) const {
  try {
    const print_limit_scope print_limit(limits.max_output_bytes);
    interpreter in(limits, make_globals(limits));
    return in.render(*root_, std::move(vars));
  } catch (const template_error& e) {
    return make_error(error_code::invalid_argument, e.what());
  } catch (const std::exception& e) {  // e.g. an out-of-range number deep in a builtin
    return make_error(error_code::invalid_argument,
                      std::string("chat template failed: ") + e.what());
  }
}

}  // namespace pagedserve::jinja
