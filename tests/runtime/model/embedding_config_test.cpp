// What a model folder declares about its embeddings, in the files sentence-transformers
// writes (Qwen3-Embedding's layout: modules.json naming 1_Pooling/, whose config.json sets
// pooling_mode_lasttoken) and vLLM's Matryoshka keys in config.json; and the refusals of a
// folder that declares what cannot be served exactly, or reaches outside itself.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/model/embedding_config.h"
#include "tests/support/temp_dir.h"

namespace pagedserve {
namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

const char* const k_modules =
    R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])";

std::string pooling_config(bool last, bool mean, bool cls) {
  return std::string(R"({"word_embedding_dimension": 1024, "pooling_mode_cls_token": )") +
         (cls ? "true" : "false") + R"(, "pooling_mode_mean_tokens": )" +
         (mean ? "true" : "false") +
         R"(, "pooling_mode_max_tokens": false, "pooling_mode_lasttoken": )" +
         (last ? "true" : "false") + "}";
}

TEST(embedding_config, ReadsTheDeclaredPoolingAndMatryoshkaSizes) {
  testing::temp_dir dir("embedding-config");
  write(dir / "modules.json", k_modules);
  write(dir / "1_Pooling/config.json", pooling_config(true, false, false));
  write(dir / "config.json", R"({"hidden_size": 1024, "matryoshka_dimensions": [32, 256, 1024]})");
  auto got = load_embedding_config(dir.path());
  ASSERT_TRUE(got.ok()) << got.err().message;
  EXPECT_EQ(got->pooling, std::optional<pooling_type>(pooling_type::last));
  EXPECT_TRUE(got->is_matryoshka);
  EXPECT_EQ(got->matryoshka_dimensions, (std::vector<std::uint32_t>{32, 256, 1024}));

  write(dir / "1_Pooling/config.json", pooling_config(false, true, false));
  write(dir / "config.json", R"({"is_matryoshka": true})");
  got = load_embedding_config(dir.path());
  ASSERT_TRUE(got.ok()) << got.err().message;
  EXPECT_EQ(got->pooling, std::optional<pooling_type>(pooling_type::mean));
  EXPECT_TRUE(got->is_matryoshka);
  EXPECT_TRUE(got->matryoshka_dimensions.empty());
}

TEST(embedding_config, AFolderWithoutSentenceTransformersFilesDeclaresNothing) {
  testing::temp_dir dir("embedding-config");
  write(dir / "config.json", R"({"hidden_size": 64})");
  auto got = load_embedding_config(dir.path());
  ASSERT_TRUE(got.ok()) << got.err().message;
  EXPECT_FALSE(got->pooling);
  EXPECT_FALSE(got->is_matryoshka);
}

TEST(embedding_config, RefusesWhatCannotBeServedExactly) {
  testing::temp_dir dir("embedding-config");
  write(dir / "modules.json", k_modules);
  write(dir / "1_Pooling/config.json", pooling_config(true, true, false));  // two modes
  auto got = load_embedding_config(dir.path());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.err().message.find("1_Pooling/config.json"), std::string::npos)
      << got.err().message;
  write(dir / "1_Pooling/config.json",
        R"({"pooling_mode_max_tokens": true, "pooling_mode_lasttoken": false})");
  EXPECT_FALSE(load_embedding_config(dir.path()).ok());  // max pooling is not served
  write(dir / "modules.json",
        R"([{"path": "../../etc", "type": "sentence_transformers.models.Pooling"}])");
  got = load_embedding_config(dir.path());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.err().message.find("modules.json"), std::string::npos) << got.err().message;
  write(dir / "modules.json",
        R"([{"path": "/tmp", "type": "sentence_transformers.models.Pooling"}])");
  EXPECT_FALSE(load_embedding_config(dir.path()).ok());
  write(dir / "modules.json", R"({"not": "a list"})");
  EXPECT_FALSE(load_embedding_config(dir.path()).ok());
  write(dir / "modules.json", "[]");
  write(dir / "config.json", R"({"matryoshka_dimensions": [0]})");
  EXPECT_FALSE(load_embedding_config(dir.path()).ok());
}

}  // namespace
}  // namespace pagedserve
