// pagedserve chat-template: JSON lines in, JSON lines out. Each input line is
// {"messages": [...], "add_generation_prompt": true, "tools": [...], <kwarg>: ...}; each output
// line is {"text": "...", "ids": [...]} as transformers' apply_chat_template gives them, or
// {"error": "..."} for a line that is not valid or whose rendering fails.

#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/command.h"
#include "runtime/chat/chat_template.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::cli {
namespace {

std::string error_line(const std::string& message) {
  return boost::json::serialize(boost::json::object{{"error", message}});
}

std::string answer(const tokenizer& tok, const chat_template& tmpl, const std::string& line) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(line, ec);
  if (ec) return error_line("not JSON: " + ec.message());
  if (!value.is_object()) return error_line("expected a JSON object with \"messages\"");
  auto request = parse_chat_request(value.get_object());
  if (!request) return error_line(request.err().message);
  request->specials = tok.specials();
  auto text = tmpl.render(*request);
  if (!text) return error_line(text.err().message);
  boost::json::array ids;
  for (const token_id id : encode_chat(tok, *text)) ids.emplace_back(id);
  return boost::json::serialize(boost::json::object{{"text", *text}, {"ids", std::move(ids)}});
}

int run_chat_template(int argc, char** argv) {
  CLI::App app("Apply a tokenizer's chat template to JSON lines from stdin: {\"messages\": ...}",
               "pagedserve chat-template");
  std::string dir;
  app.add_option("--tokenizer", dir, "folder with tokenizer.json and tokenizer_config.json")
      ->required();
  CLI11_PARSE(app, argc, argv);

  auto tok = tokenizer::load(dir);
  if (!tok) {
    std::fprintf(stderr, "pagedserve chat-template: %s\n", tok.err().message.c_str());
    return 1;
  }
  auto tmpl = chat_template::for_tokenizer(**tok);
  if (!tmpl) {
    std::fprintf(stderr, "pagedserve chat-template: %s\n", tmpl.err().message.c_str());
    return 1;
  }
  int num_bad = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string out = answer(**tok, *tmpl, line);
    if (out.starts_with("{\"error\"")) ++num_bad;
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
  }
  if (num_bad > 0) {
    std::fprintf(stderr, "pagedserve chat-template: %d bad input line(s)\n", num_bad);
  }
  return num_bad > 0 ? 1 : 0;
}

const command_registration registration{
    {"chat-template", "render JSON lines of chat messages with a tokenizer's chat template",
     &run_chat_template}};

}  // namespace
}  // namespace pagedserve::cli
