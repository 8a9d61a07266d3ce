#pragma once
// token_stream: the parser's cursor over the lexer's tokens, with the checks every parsing
// step needs. Syntax errors are thrown as syntax_error inside the parser only; parse()
// turns them into error values.

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/chat/jinja/ast.h"
#include "runtime/chat/jinja/lexer.h"
#include "runtime/chat/jinja/parser.h"

namespace pagedserve::jinja {

struct syntax_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class token_stream {
 public:
  explicit token_stream(std::vector<token> tokens) : tokens_(std::move(tokens)) {}

 protected:
  const token& peek(std::size_t ahead = 0) const {
    const std::size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  token next() {
    token t = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw syntax_error("chat template syntax error (line " + std::to_string(peek().line) +
                       "): " + what);
  }
  bool at_op(std::string_view op, std::size_t ahead = 0) const {
    return peek(ahead).kind == token_kind::op && peek(ahead).text == op;
  }
  bool at_name(std::string_view name, std::size_t ahead = 0) const {
    return peek(ahead).kind == token_kind::name && peek(ahead).text == name;
  }
  bool accept_op(std::string_view op) {
    if (!at_op(op)) return false;
    next();
    return true;
  }
  bool accept_name(std::string_view name) {
    if (!at_name(name)) return false;
    next();
    return true;
  }
  void expect_op(std::string_view op) {
    if (!accept_op(op)) fail("expected '" + std::string(op) + "'");
  }
  std::string expect_name() {
    if (peek().kind != token_kind::name) fail("expected a name");
    return next().text;
  }
  void expect_block_end() {
    if (peek().kind != token_kind::block_end) fail("expected end of statement block");
    next();
  }

  struct depth_guard {
    explicit depth_guard(token_stream& p) : p_(p) {
      if (++p_.depth_ > max_nesting) p_.fail("template nested too deeply");
    }
    ~depth_guard() { --p_.depth_; }
    depth_guard(const depth_guard&) = delete;
    depth_guard& operator=(const depth_guard&) = delete;
    token_stream& p_;
  };

  expr_ptr make(expr_kind kind, int line) {
    auto e = std::make_unique<expr>();
    e->kind = kind;
    e->line = line;
    return e;
  }

 private:
  std::vector<token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace pagedserve::jinja
