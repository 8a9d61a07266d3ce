#include "runtime/chat/jinja/parser.h"

#include <initializer_list>
#include <string_view>

#include "runtime/chat/jinja/expression_parser.h"

namespace pagedserve::jinja {
namespace {

// Statements: text, {{ output }} and {% tags %}; expressions come from expression_parser.
class parser : public expression_parser {
 public:
  using expression_parser::expression_parser;

  body parse_template() {
    body out = parse_body({});
    if (peek().kind != token_kind::eof) fail("unexpected '" + peek().text + "'");
    return out;
  }

 private:
  // Parses until `{% <one of ends>` and stops on that name (block_begin consumed).
  body parse_body(std::initializer_list<std::string_view> ends) {
    depth_guard guard(*this);
    body out;
    for (;;) {
      const token& t = peek();
      if (t.kind == token_kind::eof) {
        if (ends.size() == 0) return out;
        fail("unexpected end of template, expected '" + std::string(*ends.begin()) + "'");
      }
      if (t.kind == token_kind::text) {
        auto s = std::make_unique<stmt>();
        s->kind = stmt_kind::text;
        s->text = next().text;
        out.push_back(std::move(s));
      } else if (t.kind == token_kind::var_begin) {
        next();
        auto s = std::make_unique<stmt>();
        s->kind = stmt_kind::output;
        s->line = t.line;
        s->expression = parse_tuple_or_expression();
        if (peek().kind != token_kind::var_end) fail("expected '}}'");
        next();
        out.push_back(std::move(s));
      } else if (t.kind == token_kind::block_begin) {
        next();
        for (auto end : ends) {
          if (at_name(end)) return out;
        }
        out.push_back(parse_statement());
      } else {
        fail("unexpected token");
      }
    }
  }

  // At `{% name` for one of `ends`: consumes `name %}` and returns which one it was.
  std::string close_tag() {
    std::string name = next().text;
    expect_block_end();
    return name;
  }

  stmt_ptr parse_statement() {
    const int line = peek().line;
    const std::string keyword = expect_name();
    auto s = std::make_unique<stmt>();
    s->line = line;
    if (keyword == "if") {
      parse_if(*s);
    } else if (keyword == "for") {
      parse_for(*s);
    } else if (keyword == "set") {
      parse_set(*s);
    } else if (keyword == "macro") {
      parse_macro(*s);
    } else if (keyword == "break" || keyword == "continue") {
      s->kind = keyword == "break" ? stmt_kind::loop_break : stmt_kind::loop_continue;
      expect_block_end();
    } else if (keyword == "filter") {
      s->kind = stmt_kind::filter_block;
      auto f = make(expr_kind::filter, line);  // the first filter has no leading '|'
      f->name = expect_name();
      f->args.push_back(nullptr);
      if (accept_op("(")) parse_call_args(*f);
      s->expression = parse_filters(std::move(f));
      expect_block_end();
      s->children = parse_body({"endfilter"});
      close_tag();
    } else if (keyword == "generation") {
      s->kind = stmt_kind::scope;
      expect_block_end();
      s->children = parse_body({"endgeneration"});
      close_tag();
    } else {
      fail("unknown tag '" + keyword + "'");
    }
    return s;
  }

  void parse_if(stmt& s) {
    s.kind = stmt_kind::if_chain;
    expr_ptr cond = parse_expression();
    expect_block_end();
    for (;;) {
      body b = parse_body({"elif", "else", "endif"});
      s.branches.emplace_back(std::move(cond), std::move(b));
      const std::string tag = next().text;
      if (tag == "elif") {
        cond = parse_expression();
        expect_block_end();
        continue;
      }
      expect_block_end();
      if (tag == "else") {
        s.else_body = parse_body({"endif"});
        close_tag();
      }
      return;
    }
  }

  void parse_for(stmt& s) {
    s.kind = stmt_kind::for_loop;
    s.targets = parse_targets();
    if (!accept_name("in")) fail("expected 'in'");
    s.expression = parse_or();
    if (accept_name("if")) s.condition = parse_expression();
    if (at_name("recursive")) fail("recursive loops are not supported");
    expect_block_end();
    s.children = parse_body({"else", "endfor"});
    if (close_tag() == "else") {
      s.else_body = parse_body({"endfor"});
      close_tag();
    }
  }

  std::vector<std::string> parse_targets() {
    std::vector<std::string> names;
    const bool paren = accept_op("(");
    do {
      names.push_back(expect_name());
    } while (accept_op(","));
    if (paren) expect_op(")");
    return names;
  }

  void parse_set(stmt& s) {
    if (peek().kind == token_kind::name && at_op(".", 1)) {
      s.targets.push_back(next().text);
      next();
      s.attribute = expect_name();
    } else {
      s.targets = parse_targets();
    }
    if (accept_op("=")) {
      s.kind = stmt_kind::set;
      s.expression = parse_tuple_or_expression();
      expect_block_end();
      return;
    }
    if (s.targets.size() != 1 || !s.attribute.empty()) fail("expected '='");
    s.kind = stmt_kind::set_block;
    if (at_op("|")) s.expression = parse_filters(nullptr);
    expect_block_end();
    s.children = parse_body({"endset"});
    close_tag();
  }

  void parse_macro(stmt& s) {
    s.kind = stmt_kind::macro;
    s.text = expect_name();
    expect_op("(");
    while (!accept_op(")")) {
      if (!s.params.empty()) expect_op(",");
      if (accept_op(")")) break;
      macro_param p;
      p.name = expect_name();
      if (accept_op("=")) p.default_value = parse_expression();
      s.params.push_back(std::move(p));
    }
    expect_block_end();
    s.children = parse_body({"endmacro"});
    close_tag();
  }
};

}  // namespace

result<body> parse(std::vector<token> tokens) {
  try {
    return parser(std::move(tokens)).parse_template();
  } catch (const syntax_error& e) {
    return make_error(error_code::invalid_argument, e.what());
  } catch (const std::out_of_range&) {
    return make_error(error_code::invalid_argument,
                      "chat template syntax error: number out of range");
  }
}

}  // namespace pagedserve::jinja
