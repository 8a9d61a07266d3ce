// The server key chat_template (vLLM's --chat-template): a file or the template inline,
// loaded and compiled before the model; a value that is neither, or a template that does
// not compile, is a start-up error naming the key.

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "net/openai/served_chat_template.h"

namespace pagedserve::net {
namespace {

std::string rendered(const chat_template& tmpl, const char* content) {
  chat_request request;
  request.messages =
      boost::json::array{boost::json::object{{"role", "user"}, {"content", content}}};
  auto text = tmpl.render(request);
  return text ? *text : "error: " + text.err().message;
}

TEST(chat_template_key, EmptyMeansTheModelsOwn) {
  auto loaded = load_chat_template_key("");
  ASSERT_TRUE(loaded) << loaded.err().message;
  EXPECT_FALSE(loaded->has_value());
}

TEST(chat_template_key, AFilePathIsRead) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("pagedserve-key-" + std::to_string(::getpid()) + ".jinja");
  std::ofstream(path) << "<{{ messages[0].content }}>\n";
  auto loaded = load_chat_template_key(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded) << loaded.err().message;
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(rendered(**loaded, "Hi"), "<Hi>");  // Jinja drops the file's final newline
}

TEST(chat_template_key, AValueWithJinjaSyntaxIsTheTemplate) {
  auto loaded = load_chat_template_key("[{{ messages[0].content }}]");
  ASSERT_TRUE(loaded) << loaded.err().message;
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(rendered(**loaded, "Hi"), "[Hi]");
}

TEST(chat_template_key, APathThatDoesNotOpenIsAStartUpError) {
  auto loaded = load_chat_template_key("/no/such/dir/template.jinja");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.err().message.rfind("chat_template: ", 0), 0U) << loaded.err().message;
  EXPECT_NE(loaded.err().message.find("looks like a file path"), std::string::npos);
}

TEST(chat_template_key, ATemplateThatDoesNotCompileIsAStartUpError) {
  for (const char* bad :
       {"{% for m in messages %}{{ m.content }}", "{{ x | no_such_filter }}", "{% if %}"}) {
    auto loaded = load_chat_template_key(bad);
    ASSERT_FALSE(loaded) << bad;
    EXPECT_EQ(loaded.err().message.rfind("chat_template: the template does not compile: ", 0), 0U)
        << loaded.err().message;
  }
}

}  // namespace
}  // namespace pagedserve::net
