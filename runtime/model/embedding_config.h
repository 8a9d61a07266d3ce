#pragma once
// load_embedding_config: what a model folder declares about its embeddings, as
// sentence-transformers writes it (vLLM reads the same files):
//   modules.json lists a "sentence_transformers.models.Pooling" module whose folder (usually
//   1_Pooling/) holds config.json with pooling_mode_lasttoken / _mean_tokens / _cls_token;
//   a "sentence_transformers.models.Normalize" module means the vectors are normalized
//   (the API normalizes by default either way);
//   config.json's is_matryoshka / matryoshka_dimensions (vLLM's keys) allow `dimensions`.
// Folders without these files declare nothing (the server's pooling_type key decides).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "api/pooling_params.h"
#include "common/result.h"

namespace pagedserve {

struct embedding_config {
  std::optional<pooling_type> pooling;  // declared by the Pooling module
  bool is_matryoshka = false;
  std::vector<std::uint32_t> matryoshka_dimensions;  // empty: any up to hidden_size
};

// A pooling config that sets no supported mode, or several, is an error naming the file
// (the model cannot be served as its authors pool it).
[[nodiscard]] result<embedding_config> load_embedding_config(const std::filesystem::path& dir);

}  // namespace pagedserve
