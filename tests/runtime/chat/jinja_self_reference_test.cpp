// Templates that make a value contain itself (`set ns.l = [ns]`) or nest without end: jinja2
// answers with identity comparison for namespaces and a RecursionError; here the render
// either gives jinja2's text or fails with an error value, never overflows the stack, and
// frees what it built (ASan's leak check runs this file in CI).

#include <gtest/gtest.h>

#include "tests/runtime/chat/render_case.h"

namespace pagedserve::testing {
namespace {

// A namespace the caller keeps a handle on: after the render, nothing the render built may
// still hold it (a reference cycle would).
TEST(jinja_self_reference, ARenderLeavesNoCycleThroughANamespace) {
  auto ns = std::make_shared<jinja::dict_object>();
  ns->is_namespace = true;
  auto vars = std::make_shared<jinja::dict_object>();
  vars->set("ns", jinja::value(ns));
  auto tmpl = jinja::compiled_template::compile(
      "{% set ns.self = ns %}{% set ns.l = [ns, [ns]] %}{% set n = namespace(up=ns) %}"
      "{% set n.me = n %}{% set ns.n = n %}{{ ns.l | length }}");
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  auto out = tmpl->render(vars);
  ASSERT_TRUE(out.ok()) << out.err().message;
  EXPECT_EQ(*out, "2");
  vars.reset();
  EXPECT_EQ(ns.use_count(), 1);
}

// jinja2's Namespace has no __eq__: it equals only itself, so comparing values that contain
// themselves ends (Python: True True False False).
TEST(jinja_self_reference, NamespacesCompareByIdentity) {
  auto out = render_template(
      "{% set a = namespace(x=1) %}{% set b = namespace(x=1) %}{% set a.l = [a] %}"
      "{{ a.l == a.l }} {{ a == a }} {{ a == b }} {{ [a] == [b] }}",
      "{}");
  ASSERT_TRUE(out.ok()) << out.err().message;
  EXPECT_EQ(*out, "True True False False");
  auto contains = render_template(
      "{% set a = namespace() %}{% set a.l = [a] %}{{ a in a.l }} {{ a.l in [a.l] }}", "{}");
  ASSERT_TRUE(contains.ok()) << contains.err().message;
  EXPECT_EQ(*contains, "True True");
}

TEST(jinja_self_reference, PrintingAValueThatContainsItselfIsAnError) {
  for (const char* print : {"{{ a }}", "{{ a.l }}", "{{ a.l | string | length }}",
                            "{{ a.l | tojson }}", "{{ a.l | sort }}"}) {
    auto out = render_template(
        std::string("{% set a = namespace() %}{% set a.l = [a, 1] %}") + print, "{}");
    EXPECT_FALSE(out.ok()) << print;
  }
}

// Each pass wraps the list once more: past max_value_nesting the render fails instead of building
// a chain whose comparison, printing or destruction would recurse that deep.
TEST(jinja_self_reference, NestingIsBoundedWhereValuesAreBuilt) {
  const std::string wrap =
      "{% set ns = namespace(l=[]) %}{% for i in range(N) %}{% set ns.l = [ns.l] %}{% endfor %}";
  auto deep = render_template(wrap + "{{ ns.l == ns.l }}", R"({"N": 200000})");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.err().message, "value nested deeper than 512 levels");
  auto dicts = render_template(
      "{% set ns = namespace(d={}) %}{% for i in range(N) %}{% set ns.d = {'d': ns.d} %}"
      "{% endfor %}",
      R"({"N": 200000})");
  ASSERT_FALSE(dicts.ok());
  EXPECT_EQ(dicts.err().message, "value nested deeper than 512 levels");
  auto ok =
      render_template(wrap + "{{ ns.l == ns.l }} {{ (ns.l | string | length) }}", R"({"N": 100})");
  ASSERT_TRUE(ok.ok()) << ok.err().message;
  EXPECT_EQ(*ok, "True 202");  // str of 100 nested lists: '[' * 101 + ']' * 101
}

}  // namespace
}  // namespace pagedserve::testing
