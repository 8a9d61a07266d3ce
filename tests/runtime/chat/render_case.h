#pragma once
// A template, its variables as JSON, and the output jinja2 3.1.6 gives when configured as
// transformers configures it (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
// loopcontrols, transformers' tojson and raise_exception). For error cases `expected` is
// the message jinja2 raised.

#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "runtime/chat/jinja/template.h"
#include "runtime/chat/json_value.h"

namespace pagedserve::testing {

struct render_case {
  const char* name;
  const char* source;
  const char* vars_json;
  const char* expected;
};

inline result<std::string> render_template(const std::string& source, const std::string& vars_json,
                                           const jinja::render_limits& limits = {}) {
  auto tmpl = jinja::compiled_template::compile(source);
  if (!tmpl) return tmpl.err();
  auto vars = to_jinja_value(boost::json::parse(vars_json));
  if (!vars) return vars.err();
  return tmpl->render(vars->as_dict(), limits);
}

inline std::string case_name(const ::testing::TestParamInfo<render_case>& info) {
  return info.param.name;
}

}  // namespace pagedserve::testing
