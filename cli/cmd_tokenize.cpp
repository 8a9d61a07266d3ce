// pagedserve tokenize: JSON lines in, JSON lines out. Each input line is
// {"text": "...", "add_special_tokens": false}; each output line is {"ids": [...], "decoded":
// "..."} (decoded keeps special tokens), or {"error": "..."} for a line that is not valid.

#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/command.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::cli {
namespace {

struct tokenize_request {
  std::string text;
  bool add_special_tokens = false;
};

result<tokenize_request> parse_request(const std::string& line) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(line, ec);
  if (ec) return make_error(error_code::invalid_argument, "not JSON: " + ec.message());
  const auto* obj = value.if_object();
  const auto* text = obj != nullptr ? obj->if_contains("text") : nullptr;
  if (text == nullptr || !text->is_string()) {
    return make_error(error_code::invalid_argument, "expected an object with a string \"text\"");
  }
  tokenize_request req{std::string(text->get_string()), false};
  if (const auto* add = obj->if_contains("add_special_tokens")) {
    if (!add->is_bool()) {
      return make_error(error_code::invalid_argument, "\"add_special_tokens\" must be a boolean");
    }
    req.add_special_tokens = add->get_bool();
  }
  return req;
}

std::string answer(const tokenizer& tok, const std::string& line) {
  auto req = parse_request(line);
  if (!req) return boost::json::serialize(boost::json::object{{"error", req.err().message}});
  const auto ids = tok.encode(req->text, req->add_special_tokens);
  boost::json::array json_ids;
  json_ids.reserve(ids.size());
  for (const token_id id : ids) json_ids.emplace_back(id);
  return boost::json::serialize(
      boost::json::object{{"ids", std::move(json_ids)}, {"decoded", tok.decode(ids, false)}});
}

int run_tokenize(int argc, char** argv) {
  CLI::App app("Tokenize JSON lines from stdin: {\"text\": ..., \"add_special_tokens\": false}",
               "pagedserve tokenize");
  std::string dir;
  app.add_option("--tokenizer", dir, "folder with tokenizer.json (and tokenizer_config.json)")
      ->required();
  CLI11_PARSE(app, argc, argv);

  auto tok = tokenizer::load(dir);
  if (!tok) {
    std::fprintf(stderr, "pagedserve tokenize: %s\n", tok.err().message.c_str());
    return 1;
  }
  int num_bad = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string out = answer(**tok, line);
    if (out.starts_with("{\"error\"")) ++num_bad;
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
  }
  if (num_bad > 0) std::fprintf(stderr, "pagedserve tokenize: %d bad input line(s)\n", num_bad);
  return num_bad > 0 ? 1 : 0;
}

const command_registration registration{
    {"tokenize", "encode and decode JSON lines of text with a HF tokenizer", &run_tokenize}};

}  // namespace
}  // namespace pagedserve::cli
