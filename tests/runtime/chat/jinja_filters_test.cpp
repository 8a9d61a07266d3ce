// Builtin filters: each case's expected output is what jinja2 3.1.6 renders under
// transformers' environment, with transformers' own tojson (see render_case.h).

#include <gtest/gtest.h>

#include "tests/runtime/chat/render_case.h"

namespace pagedserve::testing {
namespace {

// clang-format off
const render_case filter_cases[] = {
    {"Trim",
     "[{{ '  a b \\n' | trim }}][{{ 'xxaxx' | trim('x') }}][{{ missing | trim }}]",
     "{}",
     "[a b][a][]"},
    {"LengthAndCount",
     "{{ [1, 2] | length }} {{ 'abc' | count }} {{ {'a': 1} | length }}",
     "{}",
     "2 3 1"},
    {"FirstAndLast",
     "{{ [1, 2, 3] | first }} {{ [1, 2, 3] | last }} {{ 'abc' | first }} [{{ [] | first }}]",
     "{}",
     "1 3 a []"},
    {"Join",
     "{{ ['a', 'b'] | join }} {{ ['a', 'b'] | join(', ') }} {{ [1, 2] | join('-') }} {{ users | join(', ', attribute='name') }}",
     "{\"users\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}",
     "ab a, b 1-2 x, y"},
    {"CaseFilters",
     "{{ 'hEllo wOrld' | upper }} {{ 'hEllo wOrld' | lower }} {{ 'hEllo wOrld' | capitalize }} {{ 'hEllo wOrld-foo (bar' | title }}",
     "{}",
     "HELLO WORLD hello world Hello world Hello World-Foo (Bar"},
    {"Replace",
     "{{ 'a-b-c' | replace('-', '+') }} {{ 'a-b-c' | replace('-', '+', 1) }}",
     "{}",
     "a+b+c a+b-c"},
    {"Default",
     "{{ missing | default('d') }} {{ missing | d('d2') }} {{ none | default('x') }} [{{ '' | default('e') }}] {{ '' | default('e', true) }} {{ 0 | default('z', boolean=true) }}",
     "{}",
     "d d2 None [] e z"},
    {"Items",
     "{% for k, v in d | items %}{{ k }}:{{ v }} {% endfor %}{{ missing | items | list }}",
     "{\"d\": {\"x\": 1, \"y\": [2]}}",
     "x:1 y:[2] []"},
    {"ListStringIntFloat",
     "{{ 'ab' | list }} {{ 12 | string }} {{ '42' | int }} {{ '4.7' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3.9 | int }} {{ '2.5' | float }} {{ 'q' | float }} {{ 2 | float }}",
     "{}",
     "['a', 'b'] 12 42 4 0 7 3 2.5 0.0 2.0"},
    {"AbsAndRound",
     "{{ -2 | abs }} {{ -2.5 | abs }} {{ 2.567 | round }} {{ 2.567 | round(2) }} {{ 2.5 | round }} {{ 3.5 | round }} {{ 2.1 | round(0, 'ceil') }} {{ 2.9 | round(0, 'floor') }} {{ 7 | round }}",
     "{}",
     "2 2.5 3.0 2.57 2.0 4.0 3.0 2.0 7"},
    {"MapAttribute",
     "{{ users | map(attribute='name') | list }} {{ users | map(attribute='age', default=0) | list }}",
     "{\"users\": [{\"name\": \"x\", \"age\": 3}, {\"name\": \"y\"}]}",
     "['x', 'y'] [3, 0]"},
    {"MapFilter",
     "{{ ['a', 'B'] | map('upper') | list }} {{ [' a ', 'b '] | map('trim') | join('|') }}",
     "{}",
     "['A', 'B'] a|b"},
    {"SelectReject",
     "{{ [0, 1, 2, 3, none, ''] | select | list }} {{ [1, 2, 3, 4] | select('odd') | list }} {{ [1, 2, 3, 4] | reject('odd') | list }} {{ [1, 5, 9] | select('gt', 3) | list }} {{ ['a', 1] | select('string') | list }}",
     "{}",
     "[1, 2, 3] [1, 3] [2, 4] [5, 9] ['a']"},
    {"SelectAttrRejectAttr",
     "{{ msgs | selectattr('role', 'equalto', 'user') | map(attribute='content') | list }} {{ msgs | rejectattr('role', 'equalto', 'user') | map(attribute='content') | list }} {{ msgs | selectattr('tool') | list | length }}",
     "{\"msgs\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", \"content\": \"b\", \"tool\": true}, {\"role\": \"user\", \"content\": \"c\"}]}",
     "['a', 'c'] ['b'] 1"},
    {"UniqueReverseSort",
     "{{ [3, 1, 3, 2] | unique | list }} {{ ['a', 'A', 'b'] | unique | list }} {{ [1, 2, 3] | reverse | list }} {{ 'abc' | reverse }} {{ [3, 1, 2] | sort }} {{ [3, 1, 2] | sort(reverse=true) }} {{ ['b', 'A', 'c'] | sort }} {{ ['b', 'A', 'c'] | sort(case_sensitive=true) }} {{ users | sort(attribute='age') | map(attribute='n') | join }}",
     "{\"users\": [{\"n\": \"x\", \"age\": 3}, {\"n\": \"y\", \"age\": 1}, {\"n\": \"z\", \"age\": 2}]}",
     "[3, 1, 2] ['a', 'b'] [3, 2, 1] cba [1, 2, 3] [3, 2, 1] ['A', 'b', 'c'] ['A', 'b', 'c'] yzx"},
    {"MinMaxSum",
     "{{ [3, 1, 2] | min }} {{ [3, 1, 2] | max }} {{ [1, 2, 3] | sum }} {{ [1.5, 2] | sum }} {{ users | sum(attribute='age') }}",
     "{\"users\": [{\"age\": 3}, {\"age\": 4}]}",
     "1 3 6 3.5 7"},
    {"SafeEscapeWordcount",
     "{{ '<a href=\"x\">&</a>' | safe }} {{ '<a href=\"x\">&\\'</a>' | escape }} {{ 'one two  three' | wordcount }}",
     "{}",
     "<a href=\"x\">&</a> &lt;a href=&#34;x&#34;&gt;&amp;&#39;&lt;/a&gt; 3"},
    {"Indent",
     "[{{ 'a\\nb\\n\\nc' | indent }}][{{ 'a\\nb' | indent(2, true) }}][{{ 'a\\n\\nb' | indent(2, blank=true) }}][{{ 'a\\nb' | indent('> ') }}]",
     "{}",
     "[a\n    b\n\n    c][  a\n  b][a\n  \n  b][a\n> b]"},
    {"TojsonDefaults",
     "{{ d | tojson }}",
     "{\"d\": {\"name\": \"get_weather\", \"desc\": \"Temp in °C, \\\"quoted\\\"\\n\", \"n\": 1, \"f\": 2.5, \"b\": true, \"z\": null, \"l\": [1, \"两\"], \"e\": {}, \"el\": []}}",
     "{\"name\": \"get_weather\", \"desc\": \"Temp in °C, \\\"quoted\\\"\\n\", \"n\": 1, \"f\": 2.5, \"b\": true, \"z\": null, \"l\": [1, \"两\"], \"e\": {}, \"el\": []}"},
    {"TojsonIndent",
     "{{ d | tojson(indent=2) }}",
     "{\"d\": {\"a\": [1, {\"b\": null}], \"c\": \"x\", \"e\": [], \"f\": {}}}",
     "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": \"x\",\n  \"e\": [],\n  \"f\": {}\n}"},
    {"TojsonOptions",
     "{{ d | tojson(ensure_ascii=true) }} {{ d | tojson(separators=(',', ':')) }} {{ d | tojson(sort_keys=true) }}",
     "{\"d\": {\"z\": \"é😀\", \"a\": [1, 2]}}",
     "{\"z\": \"\\u00e9\\ud83d\\ude00\", \"a\": [1, 2]} {\"z\":\"é😀\",\"a\":[1,2]} {\"a\": [1, 2], \"z\": \"é😀\"}"},
    {"TojsonScalars",
     "{{ 'str' | tojson }} {{ 1 | tojson }} {{ 1.0 | tojson }} {{ none | tojson }} {{ true | tojson }} {{ (1, 2) | tojson }} {{ '\\u2028\\x7f\\x01' | tojson }}",
     "{}",
     "\"str\" 1 1.0 null true [1, 2] \" \x7f""\\u0001\""},
    {"FilterChains",
     "{{ ' Hello ' | trim | lower | replace('l', 'L') | length }}",
     "{}",
     "5"},
    {"AttrFilter",
     "{{ m | attr('role') }}",
     "{\"m\": {\"role\": \"r\"}}",
     ""},
};
// clang-format on

class jinja_filter : public ::testing::TestWithParam<render_case> {};

TEST_P(jinja_filter, RendersAsJinja2) {
  const render_case& c = GetParam();
  auto out = render_template(c.source, c.vars_json);
  ASSERT_TRUE(out.ok()) << out.err().message;
  EXPECT_EQ(*out, c.expected);
}

INSTANTIATE_TEST_SUITE_P(cases, jinja_filter, ::testing::ValuesIn(filter_cases), case_name);

}  // namespace
}  // namespace pagedserve::testing
