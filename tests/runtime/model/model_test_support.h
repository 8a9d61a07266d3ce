#pragma once
// Helpers for the model I/O tests: scratch folders and an independent, minimal view of a
// safetensors file (the tests' own reader, so loader results are compared against bytes
// read without the loader).

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/model/model_config.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::testing {

inline std::filesystem::path golden_model_dir(const std::string& name) {
  return goldens_dir() / "models" / name;
}

// The config.json of golden model `name`, parsed (a failure fails the test).
inline model_config load_golden_config(const std::string& name) {
  result<model_config> config = load_model_config(golden_model_dir(name));
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.err().message);
  return config.ok() ? *config : model_config{};
}

// A config.json given as a JSON object, parsed.
inline result<model_config> parse_config_object(const boost::json::object& object) {
  return parse_model_config(boost::json::serialize(object));
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file split into its JSON header and its data section.
struct raw_safetensors {
  boost::json::object header;
  std::string data;

  static raw_safetensors read(const std::filesystem::path& path) {
    const std::string file = read_file(path);
    std::uint64_t length = 0;
    for (int i = 0; i < 8; ++i) {
      length |= static_cast<std::uint64_t>(static_cast<unsigned char>(file[i])) << (8 * i);
    }
    raw_safetensors raw;
    raw.header = boost::json::parse(file.substr(8, length)).as_object();
    raw.data = file.substr(8 + length);
    return raw;
  }

  // Serialises with the header padded by spaces to `pad_to` bytes (0: no padding).
  [[nodiscard]] std::string bytes(std::size_t pad_to = 8) const {
    std::string json = boost::json::serialize(header);
    while (pad_to != 0 && json.size() % pad_to != 0) json += ' ';
    return length_prefix(json.size()) + json + data;
  }

  void write(const std::filesystem::path& path, std::size_t pad_to = 8) const {
    write_file(path, bytes(pad_to));
  }

  static std::string length_prefix(std::uint64_t length) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
    return out;
  }
};

// Copies a goldens model's config files (not its weights) into `dir`.
inline void copy_configs(const std::string& model, const std::filesystem::path& dir) {
  for (const char* name : {"config.json", "generation_config.json"}) {
    std::filesystem::copy_file(golden_model_dir(model) / name, dir / name,
                               std::filesystem::copy_options::overwrite_existing);
  }
}

}  // namespace pagedserve::testing
