#pragma once
// model_limits: the hard caps on what a model folder may declare (docs/model-folder-limits.md).
// Every size read from config.json, generation_config.json, the safetensors headers and the
// JSON files beside them is checked against these before anything is sized or indexed by it,
// so a corrupt or hostile download is refused with an error instead of allocating without
// bound. Each cap is far above every published HF/vLLM model (the largest noted beside it).

#include <cstdint>

namespace pagedserve::model_limits {

// config.json shapes.
inline constexpr std::int64_t max_vocab_size = 1 << 24;           // Gemma 3: 262,208
inline constexpr std::int64_t max_hidden_size = 1 << 16;          // Llama 3.1 405B: 16,384
inline constexpr std::int64_t max_intermediate_size = 1 << 19;    // 405B: 53,248
inline constexpr std::int64_t max_num_layers = 1 << 10;           // 405B: 126
inline constexpr std::int64_t max_num_heads = 1 << 10;            // 405B: 128
inline constexpr std::int64_t max_head_dim = 1 << 10;             // Gemma 2: 256
inline constexpr std::int64_t max_position_embeddings = 1 << 24;  // Llama 4 Scout: 10M
inline constexpr std::int64_t max_num_experts = 1 << 12;          // Qwen3-Next: 512
// Experts over all layers (the weight list holds three tensors each).
inline constexpr std::int64_t max_total_experts = 1 << 17;  // DeepSeek-V3: 58 x 256 = 14,848
// Every token id a model folder names (vocabulary, added tokens, bos/eos, templates).
inline constexpr std::int64_t max_token_id = (1 << 24) - 1;
// tokenizer.json's ids must also lie below its vocabulary entries + added tokens + this slack:
// HF accepts holes in the id range, and tables indexed by id must stay the file's size.
inline constexpr std::int64_t max_token_id_holes = 1024;

// Any JSON file of the folder read whole (config.json, generation_config.json,
// model.safetensors.index.json, quantization configs): a few KB to a few hundred KB in practice.
inline constexpr std::uint64_t max_json_file_bytes = 64ULL << 20;
// tokenizer.json and tokenizer_config.json (real ones: 2 to 11 MB).
inline constexpr std::uint64_t max_tokenizer_file_bytes = 512ULL << 20;

}  // namespace pagedserve::model_limits
