// chat_template's apply_chat_template options beyond messages: continue_final_message (the
// rendered text cut after the final message, transformers' rule), documents, and
// load_chat_template (vLLM's --chat-template value: a file or the template itself).
// Expected texts are hand-derived by reading each template with Jinja's semantics and
// applying transformers' cut (tokenization_utils_base.py) by hand.

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "runtime/chat/chat_template.h"
#include "runtime/chat/load_chat_template.h"

namespace pagedserve {
namespace {

// ChatML as the old transformers default: keeps each message's content exactly.
constexpr const char* chatml =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|im_start|>assistant\\n' }}{% endif %}";
// Trims each message, as Llama-3's template does with `| trim`.
constexpr const char* trimming = "{% for m in messages %}[{{ m.content | trim }}]{% endfor %}";

result<std::string> render(const char* source, const char* messages_json,
                           bool continue_final_message = true) {
  auto tmpl = chat_template::compile(source);
  if (!tmpl) return tmpl.err();
  chat_request request;
  request.messages = boost::json::parse(messages_json).as_array();
  request.continue_final_message = continue_final_message;
  return tmpl->render(request);
}

std::string text_of(const result<std::string>& r) { return r ? *r : "error: " + r.err().message; }

TEST(continue_final_message, TheFinalMessageIsLeftOpen) {
  EXPECT_EQ(text_of(render(chatml, R"([{"role":"user","content":"Hi"},
                                       {"role":"assistant","content":"Sure,"}])")),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nSure,");
}

TEST(continue_final_message, TrailingWhitespaceTheTemplateKeptIsKept) {
  // "Sure, \n" appears whole in the rendered text: the cut follows its last byte.
  EXPECT_EQ(text_of(render(chatml, R"([{"role":"assistant","content":"Sure, \n"}])")),
            "<|im_start|>assistant\nSure, \n");
}

TEST(continue_final_message, TrailingWhitespaceTheTemplateTrimmedIsNotRestored) {
  // "[Sure, ]" is rendered "[Sure,]": the cut follows the stripped text.
  EXPECT_EQ(text_of(render(trimming, R"([{"role":"assistant","content":"  Sure, "}])")), "[Sure,");
}

TEST(continue_final_message, TheLastOccurrenceIsCut) {
  // transformers uses rindex: an earlier message with the same text is not the cut point.
  EXPECT_EQ(text_of(render(trimming, R"([{"role":"user","content":"ok"},
                                         {"role":"assistant","content":"ok"}])")),
            "[ok][ok");
}

TEST(continue_final_message, AnyRoleMayBeContinued) {
  // Neither transformers nor vLLM checks the role of the final message.
  EXPECT_EQ(text_of(render(chatml, R"([{"role":"user","content":"Tell me"}])")),
            "<|im_start|>user\nTell me");
}

TEST(continue_final_message, TheLastTextPartOfAListCounts) {
  EXPECT_EQ(text_of(render("{% for m in messages %}{% for p in m.content %}<{{ p.text }}>"
                           "{% endfor %}{% endfor %}",
                           R"([{"role":"assistant","content":[{"type":"text","text":"a"},
                               {"type":"text","text":"b"},{"type":"image"}]}])")),
            "<a><b");
}

TEST(continue_final_message, ATemplateThatDropsTheMessageIsAnError) {
  const auto r = render("{% for m in messages %}{{ m.role }}{% endfor %}",
                        R"([{"role":"assistant","content":"gone"}])");
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("the final message does not appear in the chat"),
            std::string::npos);
}

TEST(continue_final_message, ExcludesTheGenerationPrompt) {
  auto tmpl = chat_template::compile(chatml);
  ASSERT_TRUE(tmpl);
  chat_request request;
  request.messages = boost::json::parse(R"([{"role":"assistant","content":"x"}])").as_array();
  request.continue_final_message = true;
  request.add_generation_prompt = true;
  const auto r = tmpl->render(request);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("are not compatible"), std::string::npos);
}

TEST(chat_documents, ReachTheTemplateAsGiven) {
  auto tmpl = chat_template::compile(
      "{% if documents is none %}none{% else %}{% for d in documents %}({{ d.title }}: "
      "{{ d.text }}){% endfor %}{% endif %}");
  ASSERT_TRUE(tmpl);
  chat_request request;
  EXPECT_EQ(text_of(tmpl->render(request)), "none");
  request.documents =
      boost::json::parse(R"([{"title":"A","text":"one"},{"title":"B","text":"two"}])").as_array();
  EXPECT_EQ(text_of(tmpl->render(request)), "(A: one)(B: two)");
  request.documents = boost::json::parse(R"(["not a dict"])").as_array();
  EXPECT_FALSE(tmpl->render(request));  // transformers: "Documents should be a list of dicts"
}

class temp_dir_file {
 public:
  explicit temp_dir_file(const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("pagedserve-chat-template-" + std::to_string(::getpid()) + ".jinja")) {
    std::ofstream(path_) << text;
  }
  ~temp_dir_file() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  temp_dir_file(const temp_dir_file&) = delete;
  temp_dir_file& operator=(const temp_dir_file&) = delete;
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(load_chat_template, AFileThatOpensIsRead) {
  const temp_dir_file file("{{ messages[0].content }}\n");
  EXPECT_EQ(text_of(load_chat_template(file.path())), "{{ messages[0].content }}\n");
}

TEST(load_chat_template, AValueWithJinjaCharactersIsTheTemplate) {
  for (const char* inline_source : {"{{ x }}", "a}", "line\nline"}) {
    EXPECT_EQ(text_of(load_chat_template(inline_source)), inline_source);
  }
}

TEST(load_chat_template, APathThatDoesNotOpenIsAnError) {
  for (const std::string& value :
       {std::string("/no/such/template.jinja"), std::filesystem::temp_directory_path().string()}) {
    const auto r = load_chat_template(value);
    ASSERT_FALSE(r) << value;
    EXPECT_NE(r.err().message.find("looks like a file path, but it failed to be opened"),
              std::string::npos)
        << r.err().message;
  }
}

}  // namespace
}  // namespace pagedserve
