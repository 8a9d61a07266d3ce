#include "runtime/chat/load_chat_template.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

namespace pagedserve {
namespace {

// vLLM's JINJA_CHARS: any one of them means the value is a template, not a path.
bool looks_like_template(std::string_view value) {
  return value.find_first_of("{}\n") != std::string_view::npos;
}

// The file's text, or why it could not be read (the reason vLLM's OSError gives).
result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return make_error(error_code::io_error, "Is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(error_code::io_error, std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(error_code::io_error, "read error");
  return text.str();
}

}  // namespace

result<std::string> load_chat_template(const std::string& value) {
  auto file = read_file(value);
  if (file) return file;
  if (looks_like_template(value)) return value;
  return make_error(
      error_code::invalid_argument,
      "the supplied chat template (" + value +
          ") looks like a file path, but it failed to be opened: " + file.err().message);
}

}  // namespace pagedserve
