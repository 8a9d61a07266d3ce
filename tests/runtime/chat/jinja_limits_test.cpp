// Failure modes: malformed templates fail at compile time (never at render), and hostile
// templates or data hit a limit and fail with an error value instead of crashing.

#include <random>

#include <gtest/gtest.h>

#include "runtime/chat/chat_template.h"
#include "tests/runtime/chat/render_case.h"

namespace pagedserve::testing {
namespace {

bool compiles(const std::string& source) { return jinja::compiled_template::compile(source).ok(); }

std::string compile_error(const std::string& source) {
  auto t = jinja::compiled_template::compile(source);
  return t.ok() ? std::string("(compiled)") : t.err().message;
}

TEST(jinja_compile, MalformedTemplatesFailAtCompile) {
  EXPECT_FALSE(compiles("{% if x %}never closed"));
  EXPECT_FALSE(compiles("{% for x in xs %}{% endif %}"));
  EXPECT_FALSE(compiles("{{ 'unterminated }}"));
  EXPECT_FALSE(compiles("{{ x + }}"));
  EXPECT_FALSE(compiles("{{ x"));
  EXPECT_FALSE(compiles("{# never closed"));
  EXPECT_FALSE(compiles("{% endfor %}"));
  EXPECT_FALSE(compiles("{% unknown_tag %}"));
  EXPECT_FALSE(compiles("{{ (1, 2 }}"));
  EXPECT_FALSE(compiles("{{ a ? b }}"));
  EXPECT_FALSE(compiles("{% set %}"));
  EXPECT_FALSE(compiles("{% raw %}no end"));
}

TEST(jinja_compile, UnknownFiltersAndTestsFailAtCompile) {
  EXPECT_EQ(compile_error("{{ x | no_such_filter }}"),
            "chat template error (line 1): no filter named 'no_such_filter'");
  EXPECT_EQ(compile_error("\n{{ x is no_such_test }}"),
            "chat template error (line 2): no test named 'no_such_test'");
}

TEST(jinja_compile, BreakOutsideALoopFailsAtCompile) {
  EXPECT_FALSE(compiles("{% break %}"));
  EXPECT_FALSE(compiles("{% for x in y %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}"));
  EXPECT_TRUE(compiles("{% for x in y %}{% if x %}{% break %}{% endif %}{% endfor %}"));
}

TEST(jinja_compile, SyntaxErrorsNameTheLine) {
  EXPECT_EQ(compile_error("line one\n{% if %}"),
            "chat template syntax error (line 2): unexpected token in expression");
}

TEST(jinja_compile, AMalformedChatTemplateFailsAtCompile) {
  auto t = chat_template::compile("{% for message in messages %}{{ message.content }}");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.err().code, error_code::invalid_argument);
}

TEST(jinja_limits, DeeplyNestedExpressionsAreRefusedAtCompile) {
  const std::string deep =
      "{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}";
  EXPECT_FALSE(compiles(deep));
  std::string blocks;
  for (int i = 0; i < 5000; ++i) blocks += "{% if true %}";
  for (int i = 0; i < 5000; ++i) blocks += "{% endif %}";
  EXPECT_FALSE(compiles(blocks));
  std::string nots = "{{ ";
  for (int i = 0; i < 100000; ++i) nots += "not ";
  EXPECT_FALSE(compiles(nots + "x }}"));
}

TEST(jinja_limits, ModeratelyNestedTemplatesStillCompile) {
  const std::string nested = "{{ " + std::string(50, '(') + "1" + std::string(50, ')') + " }}";
  auto out = render_template(nested, "{}");
  ASSERT_TRUE(out.ok()) << out.err().message;
  EXPECT_EQ(*out, "1");
}

TEST(jinja_limits, InfiniteMacroRecursionIsAnError) {
  auto out = render_template("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "{}");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.err().message, "maximum macro call depth exceeded");
}

TEST(jinja_limits, HugeLoopsHitTheStepBudget) {
  jinja::render_limits limits;
  limits.max_steps = 10000;
  auto out = render_template(
      "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}", "{}", limits);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.err().message, "template exceeded its step budget");
}

TEST(jinja_limits, HugeRangesAreRefused) {
  auto out = render_template("{% for i in range(10000000000) %}{% endfor %}", "{}");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.err().message, "range too large");
}

TEST(jinja_limits, OutputSizeIsBounded) {
  jinja::render_limits limits;
  limits.max_output_bytes = 1000;
  auto out = render_template("{% for i in range(100) %}0123456789abcdef{% endfor %}", "{}", limits);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.err().message, "rendered output exceeds the size limit");
}

TEST(jinja_limits, StringDoublingIsBounded) {
  jinja::render_limits limits;
  limits.max_output_bytes = 1 << 16;
  auto out = render_template(
      "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% "
      "endfor %}",
      "{}", limits);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.err().message, "string exceeds the size limit");
  EXPECT_FALSE(render_template("{{ 'x' * 10000000000 }}", "{}").ok());
}

// Lists share their items, so a list of a list of a list ... printed whole is exponential in
// the nesting although each list is small: printing stops at the output limit.
TEST(jinja_limits, PrintingSharedNestedListsIsBounded) {
  const std::string nest =
      "{% set a = ['xxxxxxxxxx'] * 1000 %}{% set b = [a] * 1000 %}{% set c = [b] * 1000 %}";
  for (const char* print : {"{{ c }}", "{{ c | tojson }}", "{{ c | string | length }}",
                            "{{ c | tojson(indent=2) }}", "{{ (c ~ '') | length }}"}) {
    auto out = render_template(nest + print, "{}");
    ASSERT_FALSE(out.ok()) << print;
    EXPECT_EQ(out.err().message, "value too long to print (over 16777216 bytes)") << print;
  }
}

// An indent width is allocated as that many spaces: a hostile width is refused first.
TEST(jinja_limits, HugeIndentWidthsAreRefused) {
  for (const char* source :
       {"{{ [1, [2]] | tojson(indent=99999999999) }}", "{{ 'a\nb' | indent(99999999999) }}"}) {
    auto out = render_template(source, "{}");
    ASSERT_FALSE(out.ok()) << source;
    EXPECT_EQ(out.err().message, "indent of 99999999999 exceeds the size limit") << source;
  }
  jinja::render_limits limits;
  limits.max_output_bytes = 1 << 16;
  auto lines = render_template("{{ ('x\n' * 1000) | indent(1000) | length }}", "{}", limits);
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.err().message, "string too long");
  EXPECT_EQ(*render_template("{{ [1] | tojson(indent=2) }}", "{}"), "[\n  1\n]");
}

TEST(jinja_limits, DeeplyNestedRequestDataIsRefused) {
  std::string json;
  for (int i = 0; i < 1000; ++i) json += "[";
  for (int i = 0; i < 1000; ++i) json += "]";
  boost::json::parse_options opts;
  opts.max_depth = 2000;
  auto parsed = boost::json::parse(json, {}, opts);
  EXPECT_FALSE(to_jinja_value(parsed).ok());
}

TEST(jinja_limits, IntegerOverflowIsAnError) {
  auto out = render_template("{{ 9223372036854775807 + 1 }}", "{}");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.err().message, "integer overflow");
}

// Random templates stitched from Jinja fragments: each must compile or fail cleanly, and
// each that compiles must render or fail cleanly (under ASan/UBSan in CI as well).
TEST(jinja_robustness, RandomFragmentTemplatesNeverCrash) {
  const std::vector<std::string> fragments = {"{{",
                                              "}}",
                                              "{%",
                                              "%}",
                                              "{%-",
                                              "-%}",
                                              "{#",
                                              "#}",
                                              " x ",
                                              " xs ",
                                              " ns.a ",
                                              " 1 ",
                                              " -1 ",
                                              " 9223372036854775807 ",
                                              " 1e308 ",
                                              " 'é' ",
                                              " \"s\" ",
                                              " + ",
                                              " - ",
                                              " * ",
                                              " / ",
                                              " // ",
                                              " % ",
                                              " ** ",
                                              " ~ ",
                                              " == ",
                                              " < ",
                                              " in ",
                                              " not ",
                                              " and ",
                                              " or ",
                                              " if ",
                                              " else ",
                                              " for ",
                                              " endfor ",
                                              " endif ",
                                              " set ",
                                              " = ",
                                              " is ",
                                              " defined ",
                                              " none ",
                                              " | ",
                                              " length ",
                                              " tojson ",
                                              " join ",
                                              " trim ",
                                              " items ",
                                              " (",
                                              ") ",
                                              " [",
                                              "] ",
                                              " {",
                                              "} ",
                                              ",",
                                              ":",
                                              ".",
                                              " range(5) ",
                                              " namespace(a=1) ",
                                              " loop.index ",
                                              " xs[::-1] ",
                                              "\n",
                                              "text"};
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::size_t> pick(0, fragments.size() - 1);
  std::uniform_int_distribution<int> count(1, 14);
  jinja::render_limits limits;
  limits.max_steps = 2000;
  limits.max_output_bytes = 1 << 14;
  limits.max_items = 1 << 12;
  auto vars = to_jinja_value(
      boost::json::parse(R"({"x": "a", "xs": [1, 2, 3], "ns": {"a": [1, {"b": null}]}})"));
  ASSERT_TRUE(vars.ok());
  int num_compiled = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string source;
    for (int n = count(rng); n > 0; --n) source += fragments[pick(rng)];
    auto t = jinja::compiled_template::compile(source);
    if (!t.ok()) continue;
    ++num_compiled;
    (void)t->render(vars->as_dict(), limits);
  }
  EXPECT_GT(num_compiled, 100);
}

TEST(jinja_robustness, NumericEdgeCasesAreErrorsNotUndefinedBehaviour) {
  EXPECT_FALSE(render_template("{{ 1e30 | int }}", "{}").ok());
  EXPECT_FALSE(render_template("{{ (-9223372036854775807 - 1) | abs }}", "{}").ok());
  EXPECT_FALSE(render_template("{{ 'abcd' * 4611686018427387904 }}", "{}").ok());
  EXPECT_FALSE(render_template("{{ 2 ** 64 }}", "{}").ok());
  EXPECT_FALSE(render_template("{{ x.99999999999999999999 }}", "{}").ok());
  EXPECT_FALSE(render_template("{{ '{99999999999999999999999}'.format(1) }}", "{}").ok());
  auto neg_one = render_template("{{ (-1) ** 3 }} {{ 0 ** 0 }}", "{}");
  ASSERT_TRUE(neg_one.ok()) << neg_one.err().message;
  EXPECT_EQ(*neg_one, "-1 1");  // Python: (-1) ** 3 == -1, 0 ** 0 == 1
  auto steps = render_template(
      "{{ range(-5, 9223372036854775807, 9223372036854775807) | list }} "
      "{{ [1, 2, 3][::9223372036854775807] }} {{ [1, 2, 3][::-9223372036854775807] }}",
      "{}");
  ASSERT_TRUE(steps.ok()) << steps.err().message;
  EXPECT_EQ(*steps, "[-5, 9223372036854775802] [1] [3]");  // as Python
}

TEST(jinja_render, RenderingTwiceGivesTheSameTextAndNoSharedState) {
  auto t = jinja::compiled_template::compile(
      "{% set ns = namespace(n=0) %}{% for x in xs %}{% set ns.n = ns.n + x %}{% endfor %}{{ ns.n "
      "}}");
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 2; ++i) {
    auto vars = to_jinja_value(boost::json::parse(R"({"xs": [1, 2, 3]})"));
    ASSERT_TRUE(vars.ok());
    auto out = t->render(vars->as_dict());
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(*out, "6");
  }
}

}  // namespace
}  // namespace pagedserve::testing
