#include "tests/runtime/tokenizer/test_tokenizers.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <boost/json.hpp>

#include "tests/support/fixtures.h"

namespace pagedserve::testing {

namespace {

std::vector<token_id> ids_of(const boost::json::value& v) {
  std::vector<token_id> out;
  for (const auto& id : v.as_array()) out.push_back(static_cast<token_id>(id.as_int64()));
  return out;
}

std::vector<golden_case> load_cases(const std::string& family) {
  std::ifstream in(goldens_dir() / "tokenizers" / (family + ".json"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const boost::json::value root = boost::json::parse(buffer.str());
  std::vector<golden_case> cases;
  for (const auto& c : root.at("cases").as_array()) {
    cases.push_back({std::string(c.at("text").as_string()), ids_of(c.at("ids")),
                     ids_of(c.at("ids_with_special")), std::string(c.at("decoded").as_string())});
  }
  return cases;
}

}  // namespace

std::shared_ptr<const tokenizer> family_tokenizer(const std::string& family) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const tokenizer>> loaded;
  const std::lock_guard lock(mutex);
  auto& slot = loaded[family];
  if (!slot) {
    auto tok = tokenizer::load(tokenizers_dir() / family);
    if (!tok) {
      std::fprintf(stderr, "cannot load tokenizer %s: %s\n", family.c_str(),
                   tok.err().message.c_str());
      std::abort();
    }
    slot = *tok;
  }
  return slot;
}

const std::vector<golden_case>& golden_cases(const std::string& family) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<golden_case>> loaded;
  const std::lock_guard lock(mutex);
  auto it = loaded.find(family);
  if (it == loaded.end()) it = loaded.emplace(family, load_cases(family)).first;
  return it->second;
}

}  // namespace pagedserve::testing
