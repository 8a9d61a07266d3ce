#include "train/model/token_stream.h"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>

#include "runtime/chat/chat_template.h"

namespace pagedserve::train {
namespace {

namespace json = boost::json;

result<token_id> special_id(const tokenizer& tok, std::string_view name) {
  std::optional<token_id> id = tok.token_to_id(name);
  if (!id)
    return make_error(error_code::invalid_argument, "the tokenizer has no " + std::string(name));
  return *id;
}

std::string where(const std::filesystem::path& file, std::int64_t line) {
  return file.string() + ":" + std::to_string(line);
}

}  // namespace

status append_text_file(const tokenizer& tok, const std::filesystem::path& file,
                        token_stream& stream) {
  std::ifstream in(file);
  if (!in) return make_error(error_code::io_error, "cannot read " + file.string());
  result<token_id> bos = special_id(tok, "<|begin_of_text|>");
  result<token_id> eos = special_id(tok, "<|end_of_text|>");
  if (!bos.ok()) return bos.err();
  if (!eos.ok()) return eos.err();
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    stream.ids.push_back(*bos);
    for (token_id id : tok.encode(line, false)) stream.ids.push_back(id);
    stream.ids.push_back(*eos);
    ++stream.num_documents;
  }
  return status::success();
}

status append_chat_file(const tokenizer& tok, const std::filesystem::path& file,
                        token_stream& stream) {
  std::ifstream in(file);
  if (!in) return make_error(error_code::io_error, "cannot read " + file.string());
  result<chat_template> tmpl = chat_template::for_tokenizer(tok);
  if (!tmpl.ok())
    return make_error(error_code::invalid_argument, "chat template: " + tmpl.err().message);
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    boost::system::error_code ec;
    json::value value = json::parse(line, ec);
    if (ec || !value.is_object())
      return make_error(error_code::invalid_argument, where(file, number) + ": not a JSON object");
    result<chat_request> request = parse_chat_request(value.get_object());
    if (!request.ok())
      return make_error(error_code::invalid_argument,
                        where(file, number) + ": " + request.err().message);
    request->specials = tok.specials();
    result<std::string> text = tmpl->render(*request);
    if (!text.ok())
      return make_error(error_code::invalid_argument,
                        where(file, number) + ": " + text.err().message);
    for (token_id id : encode_chat(tok, *text)) stream.ids.push_back(id);
    ++stream.num_documents;
  }
  return status::success();
}

window_batch random_windows(const token_stream& stream, std::int64_t batch, std::int64_t seq_len,
                            seeded_random& random) {
  window_batch b;
  const auto starts =
      static_cast<std::uint64_t>(static_cast<std::int64_t>(stream.ids.size()) - seq_len);
  for (std::int64_t w = 0; w < batch; ++w) {
    const auto at = static_cast<std::ptrdiff_t>(random.below(starts));
    const auto first = stream.ids.begin() + at;
    b.inputs.insert(b.inputs.end(), first, first + seq_len);
    b.targets.insert(b.targets.end(), first + 1, first + seq_len + 1);
  }
  return b;
}

std::int64_t num_tiling_windows(const token_stream& stream, std::int64_t seq_len) {
  return (static_cast<std::int64_t>(stream.ids.size()) - 1) / seq_len;
}

window_batch tiling_windows(const token_stream& stream, std::int64_t first, std::int64_t count,
                            std::int64_t seq_len) {
  window_batch b;
  const std::int64_t end = std::min(first + count, num_tiling_windows(stream, seq_len));
  for (std::int64_t w = first; w < end; ++w) {
    const auto begin = stream.ids.begin() + static_cast<std::ptrdiff_t>(w * seq_len);
    b.inputs.insert(b.inputs.end(), begin, begin + seq_len);
    b.targets.insert(b.targets.end(), begin + 1, begin + seq_len + 1);
  }
  return b;
}

}  // namespace pagedserve::train
