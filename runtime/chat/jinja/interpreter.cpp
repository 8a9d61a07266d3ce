// Statement execution. Expression evaluation lives in expressions.cpp.

#include "runtime/chat/jinja/interpreter.h"

#include <utility>

#include "runtime/chat/jinja/format.h"

namespace pagedserve::jinja {
namespace {

// Restores a member to its old value at scope exit (frames, output buffer, subjects).
template <class T>
class restore {
 public:
  explicit restore(T& slot) : slot_(slot), saved_(slot) {}
  ~restore() { slot_ = std::move(saved_); }
  restore(const restore&) = delete;
  restore& operator=(const restore&) = delete;

 private:
  T& slot_;
  T saved_;
};

dict_ptr new_frame() { return std::make_shared<dict_object>(); }

}  // namespace

interpreter::interpreter(const render_limits& limits, dict_ptr globals)
    : limits_(limits), globals_(std::move(globals)) {}

interpreter::~interpreter() {
  for (const dict_ptr& ns : assigned_namespaces_) {
    auto entries = std::exchange(ns->entries, {});  // destroyed here, after ns is emptied
  }
}

std::string interpreter::render(const body& root, dict_ptr vars) {
  frames_ = {std::move(vars)};
  out_.clear();
  exec(root);
  return std::move(out_);
}

interpreter::flow interpreter::exec(const body& b) {
  for (const stmt_ptr& s : b) {
    if (flow f = exec(*s); f != flow::normal) return f;
  }
  return flow::normal;
}

interpreter::flow interpreter::exec(const stmt& s) {
  switch (s.kind) {
    case stmt_kind::text:
      emit(s.text);
      return flow::normal;
    case stmt_kind::output:
      emit(python_str(eval(*s.expression)));
      return flow::normal;
    case stmt_kind::if_chain:
      return exec_if(s);
    case stmt_kind::for_loop:
      return exec_for(s);
    case stmt_kind::set:
    case stmt_kind::set_block:
      exec_set(s);
      return flow::normal;
    case stmt_kind::macro:
      exec_macro(s);
      return flow::normal;
    case stmt_kind::loop_break:
      return flow::break_loop;
    case stmt_kind::loop_continue:
      return flow::continue_loop;
    case stmt_kind::filter_block: {
      const value captured(capture(s.children));
      restore<const value*> guard(block_subject_);
      block_subject_ = &captured;
      emit(python_str(eval(*s.expression)));
      return flow::normal;
    }
    case stmt_kind::scope:
      emit(capture(s.children));
      return flow::normal;
  }
  return flow::normal;
}

interpreter::flow interpreter::exec_if(const stmt& s) {
  for (const auto& [condition, branch] : s.branches) {
    if (eval(*condition).truthy()) return exec(branch);
  }
  return exec(s.else_body);
}

value interpreter::make_loop(const std::vector<value>& items, std::size_t i) {
  const auto n = static_cast<std::int64_t>(items.size());
  const auto index = static_cast<std::int64_t>(i);
  auto loop = std::make_shared<dict_object>();
  loop->set("index0", value(index));
  loop->set("index", value(index + 1));
  loop->set("revindex0", value(n - index - 1));
  loop->set("revindex", value(n - index));
  loop->set("first", value(i == 0));
  loop->set("last", value(index == n - 1));
  loop->set("length", value(n));
  loop->set("depth", value(1));
  loop->set("depth0", value(0));
  if (i > 0) loop->set("previtem", items[i - 1]);
  if (index + 1 < n) loop->set("nextitem", items[i + 1]);
  loop->set("cycle", value::function("cycle", [i](call_args& a) {
              if (a.positional.empty()) throw template_error("no items for cycling given");
              return a.positional[i % a.positional.size()];
            }));
  return value(std::move(loop));
}

interpreter::flow interpreter::exec_for(const stmt& s) {
  std::vector<value> items = iterate(eval(*s.expression));
  if (s.condition) {  // `for x in xs if cond`: filtered before loop.* is computed
    std::vector<value> kept;
    for (value& item : items) {
      restore<std::vector<dict_ptr>> guard(frames_);
      frames_.push_back(new_frame());
      bind_targets(s.targets, item);
      if (eval(*s.condition).truthy()) kept.push_back(std::move(item));
    }
    items = std::move(kept);
  }
  if (items.empty()) return exec(s.else_body);
  for (std::size_t i = 0; i < items.size(); ++i) {
    step();
    restore<std::vector<dict_ptr>> guard(frames_);
    frames_.push_back(new_frame());
    frames_.back()->set("loop", make_loop(items, i));
    bind_targets(s.targets, items[i]);
    if (exec(s.children) == flow::break_loop) break;
  }
  return flow::normal;
}

void interpreter::exec_set(const stmt& s) {
  value v;
  if (s.kind == stmt_kind::set_block) {
    const value captured(capture(s.children));
    restore<const value*> guard(block_subject_);
    block_subject_ = &captured;
    v = s.expression ? eval(*s.expression) : captured;
  } else {
    v = eval(*s.expression);
  }
  if (s.attribute.empty()) {
    bind_targets(s.targets, v);
    return;
  }
  const value target = lookup(s.targets[0]);
  if (!target.is_dict() || !target.as_dict()->is_namespace) {
    throw template_error("cannot assign attribute on non-namespace object");
  }
  const dict_ptr& ns = target.as_dict();
  if (assigned_namespace_set_.insert(ns.get()).second) assigned_namespaces_.push_back(ns);
  ns->set(s.attribute, std::move(v));
}

void interpreter::exec_macro(const stmt& s) {
  const stmt* macro = &s;
  assign(s.text,
         value::function(s.text, [this, macro](call_args& a) { return call_macro(*macro, a); }));
}

value interpreter::call_macro(const stmt& macro, call_args& args) {
  if (call_depth_ >= limits_.max_call_depth)
    throw template_error("maximum macro call depth exceeded");
  step();
  if (args.positional.size() > macro.params.size()) {
    throw template_error("macro '" + macro.text + "' takes not more than " +
                         std::to_string(macro.params.size()) + " argument(s)");
  }
  restore<std::vector<dict_ptr>> frames_guard(frames_);
  restore<int> depth_guard(call_depth_);
  ++call_depth_;
  frames_ = {frames_.front(), new_frame()};
  for (std::size_t i = 0; i < macro.params.size(); ++i) {
    const macro_param& p = macro.params[i];
    value v;
    if (i < args.positional.size()) v = args.positional[i];
    for (const auto& [k, kv] : args.keyword) {
      if (k == p.name) v = kv;
    }
    if (v.is_undefined() && p.default_value) v = eval(*p.default_value);
    if (v.is_undefined()) v = value::undefined("'" + p.name + "' is undefined");
    frames_.back()->set(p.name, std::move(v));
  }
  for (const auto& [k, _] : args.keyword) {
    bool known = false;
    for (const macro_param& p : macro.params) known = known || p.name == k;
    if (!known)
      throw template_error("macro '" + macro.text + "' takes no keyword argument '" + k + "'");
  }
  return value(capture(macro.children));
}

// Renders `b` into its own buffer, in a fresh frame.
// (A throw abandons the whole render, so only the normal path needs to restore out_.)
std::string interpreter::capture(const body& b) {
  restore<std::vector<dict_ptr>> frames_guard(frames_);
  std::string outer;
  outer.swap(out_);
  frames_.push_back(new_frame());
  exec(b);
  std::string captured;
  captured.swap(out_);
  out_.swap(outer);
  return captured;
}

value interpreter::lookup(const std::string& name) const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (const value* v = (*it)->find(name)) return *v;
  }
  if (const value* v = globals_->find(name)) return *v;
  return value::undefined("'" + name + "' is undefined");
}

void interpreter::assign(const std::string& name, value v) {
  frames_.back()->set(name, std::move(v));
}

void interpreter::bind_targets(const std::vector<std::string>& targets, const value& v) {
  if (targets.size() == 1) {
    assign(targets[0], v);
    return;
  }
  const std::vector<value> parts = iterate(v);
  if (parts.size() != targets.size()) {
    throw template_error("cannot unpack " + std::to_string(parts.size()) + " values into " +
                         std::to_string(targets.size()) + " names");
  }
  for (std::size_t i = 0; i < targets.size(); ++i) assign(targets[i], parts[i]);
}

void interpreter::emit(const std::string& s) {
  step();
  out_ += s;
  if (out_.size() > limits_.max_output_bytes)
    throw template_error("rendered output exceeds the size limit");
}

void interpreter::step() {
  if (++steps_ > limits_.max_steps) throw template_error("template exceeded its step budget");
}

void interpreter::check_string(const std::string& s) const {
  if (s.size() > limits_.max_output_bytes) throw template_error("string exceeds the size limit");
}

}  // namespace pagedserve::jinja
