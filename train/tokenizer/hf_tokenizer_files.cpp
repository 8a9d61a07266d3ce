#include "train/tokenizer/hf_tokenizer_files.h"

#include <fstream>

#include <boost/json.hpp>

#include "runtime/tokenizer/byte_level.h"
#include "train/tokenizer/json_pretty.h"
#include "train/tokenizer/llama3_chat_format.h"
#include "train/tokenizer/llama3_pre_tokenizer.h"

namespace pagedserve::train {

namespace {

std::string byte_level_form(const std::string& bytes) {
  std::string out;
  byte_level::encode(bytes, out);
  return out;
}

std::int64_t special_id(const bpe_vocabulary& vocab, std::size_t i) {
  return static_cast<std::int64_t>(vocab.tokens.size() + i);
}

boost::json::object bpe_model_json(const bpe_vocabulary& vocab) {
  boost::json::object tokens;
  tokens.reserve(vocab.tokens.size());
  for (std::size_t id = 0; id < vocab.tokens.size(); ++id) {
    tokens[byte_level_form(vocab.tokens[id])] = static_cast<std::int64_t>(id);
  }
  boost::json::array merges;
  merges.reserve(vocab.merges.size());
  for (const bpe_merge& m : vocab.merges) {
    merges.push_back(
        boost::json::array{byte_level_form(vocab.tokens[static_cast<std::size_t>(m.pair.left)]),
                           byte_level_form(vocab.tokens[static_cast<std::size_t>(m.pair.right)])});
  }
  return {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", nullptr},
          {"continuing_subword_prefix", nullptr},
          {"end_of_word_suffix", nullptr},
          {"fuse_unk", false},
          {"byte_fallback", false},
          {"ignore_merges", false},
          {"vocab", std::move(tokens)},
          {"merges", std::move(merges)}};
}

boost::json::array added_tokens_json(const bpe_vocabulary& vocab) {
  boost::json::array added;
  for (std::size_t i = 0; i < special_token_names.size(); ++i) {
    added.push_back(boost::json::object{{"id", special_id(vocab, i)},
                                        {"content", special_token_names[i]},
                                        {"single_word", false},
                                        {"lstrip", false},
                                        {"rstrip", false},
                                        {"normalized", false},
                                        {"special", true}});
  }
  return added;
}

// Llama 3's: ByteLevel (offsets only; no change to the ids), then BOS before each sequence.
boost::json::object post_processor_json(const bpe_vocabulary& vocab) {
  auto special = [](int type_id) {
    return boost::json::object{{"SpecialToken", {{"id", bos_token}, {"type_id", type_id}}}};
  };
  auto sequence = [](std::string_view id, int type_id) {
    return boost::json::object{{"Sequence", {{"id", id}, {"type_id", type_id}}}};
  };
  boost::json::object bos{{"id", bos_token},
                          {"ids", boost::json::array{special_id(vocab, 0)}},
                          {"tokens", boost::json::array{bos_token}}};
  boost::json::object templ{
      {"type", "TemplateProcessing"},
      {"single", boost::json::array{special(0), sequence("A", 0)}},
      {"pair", boost::json::array{special(0), sequence("A", 0), special(1), sequence("B", 1)}},
      {"special_tokens", {{bos_token, std::move(bos)}}}};
  boost::json::object byte_level{{"type", "ByteLevel"},
                                 {"add_prefix_space", true},
                                 {"trim_offsets", false},
                                 {"use_regex", true}};
  return {{"type", "Sequence"},
          {"processors", boost::json::array{std::move(byte_level), std::move(templ)}}};
}

status write_json(const std::filesystem::path& path, const boost::json::value& value) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return make_error(error_code::io_error, "cannot create " + path.string());
  write_pretty_json(out, value);
  out << '\n';
  out.close();
  if (!out) return make_error(error_code::io_error, "cannot write " + path.string());
  return status::success();
}

}  // namespace

boost::json::value tokenizer_json(const bpe_vocabulary& vocab) {
  return boost::json::object{{"version", "1.0"},
                             {"truncation", nullptr},
                             {"padding", nullptr},
                             {"added_tokens", added_tokens_json(vocab)},
                             {"normalizer", nullptr},
                             {"pre_tokenizer", llama3_pre_tokenizer_json()},
                             {"post_processor", post_processor_json(vocab)},
                             {"decoder",
                              {{"type", "ByteLevel"},
                               {"add_prefix_space", true},
                               {"trim_offsets", true},
                               {"use_regex", true}}},
                             {"model", bpe_model_json(vocab)}};
}

boost::json::value tokenizer_config_json(const bpe_vocabulary& vocab,
                                         std::int64_t model_max_length) {
  boost::json::object decoder;
  for (std::size_t i = 0; i < special_token_names.size(); ++i) {
    decoder[std::to_string(special_id(vocab, i))] =
        boost::json::object{{"content", special_token_names[i]},
                            {"lstrip", false},
                            {"normalized", false},
                            {"rstrip", false},
                            {"single_word", false},
                            {"special", true}};
  }
  return boost::json::object{
      {"added_tokens_decoder", std::move(decoder)},
      {"bos_token", bos_token},
      {"chat_template", chat_template},
      {"clean_up_tokenization_spaces", false},
      {"eos_token", eot_token},
      {"model_input_names", boost::json::array{"input_ids", "attention_mask"}},
      {"model_max_length", model_max_length},
      {"tokenizer_class", "PreTrainedTokenizerFast"}};
}

status write_tokenizer_files(const std::filesystem::path& dir, const bpe_vocabulary& vocab,
                             std::int64_t model_max_length) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return make_error(error_code::io_error, "cannot create " + dir.string() + ": " + ec.message());
  }
  if (auto s = write_json(dir / "tokenizer.json", tokenizer_json(vocab)); !s) return s;
  return write_json(dir / "tokenizer_config.json", tokenizer_config_json(vocab, model_max_length));
}

}  // namespace pagedserve::train
