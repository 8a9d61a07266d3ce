#pragma once
// interpreter: renders a parsed template against variables, one instance per render.
// Scoping follows Jinja: each for-loop iteration, macro call and {% generation %} block gets
// a fresh frame (its `set`s vanish at the end); `if` blocks share the enclosing frame.
// Failures throw template_error; compiled_template::render turns them into error values.

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/chat/jinja/ast.h"
#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/value.h"

namespace pagedserve::jinja {

class interpreter {
 public:
  interpreter(const render_limits& limits, dict_ptr globals);
  // Empties every namespace the render assigned to, so reference cycles made through them
  // (`set ns.self = ns`, `set ns.l = [ns]`) are freed with the render.
  ~interpreter();
  interpreter(const interpreter&) = delete;
  interpreter& operator=(const interpreter&) = delete;

  // Renders `root` with `vars` as the template's top-level variables.
  [[nodiscard]] std::string render(const body& root, dict_ptr vars);

 private:
  enum class flow { normal, break_loop, continue_loop };

  flow exec(const body& b);
  flow exec(const stmt& s);
  flow exec_if(const stmt& s);
  flow exec_for(const stmt& s);
  void exec_set(const stmt& s);
  void exec_macro(const stmt& s);
  std::string capture(const body& b);

  value eval(const expr& e);
  value eval_binary(const expr& e);
  value eval_compare(const expr& e);
  value eval_call(const expr& e);
  value eval_filter(const expr& e);
  value eval_test(const expr& e);
  value eval_collection(const expr& e);
  call_args eval_args(const expr& e, std::size_t first_positional);
  value call_macro(const stmt& macro, call_args& args);

  [[nodiscard]] value lookup(const std::string& name) const;
  void assign(const std::string& name, value v);
  void bind_targets(const std::vector<std::string>& targets, const value& v);
  value make_loop(const std::vector<value>& items, std::size_t i);
  void emit(const std::string& s);
  void step();
  void check_string(const std::string& s) const;

  const render_limits& limits_;
  dict_ptr globals_;
  std::vector<dict_ptr> frames_;  // innermost last; frames_[0] holds the render variables
  std::string out_;
  std::uint64_t steps_ = 0;
  int call_depth_ = 0;
  // Lists and dicts are immutable once built, so only these can be part of a cycle.
  std::vector<dict_ptr> assigned_namespaces_;
  std::unordered_set<const dict_object*> assigned_namespace_set_;
  const value* block_subject_ = nullptr;  // the captured body in {% filter %} / {% set %} blocks
};

}  // namespace pagedserve::jinja
