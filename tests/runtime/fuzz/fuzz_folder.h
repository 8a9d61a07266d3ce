#pragma once
// fuzz_folder: the one scratch model folder a fuzz target writes its input into (the loaders
// under test read folders, not buffers). Made once per process under the temporary
// directory with mkdtemp, so parallel fuzzers never share it; files are rewritten per input.

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace pagedserve::fuzzing {

inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "pagedserve-fuzz-model-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return std::filesystem::path(pattern);
  }();
  return folder;
}

// Writes `bytes` as `name` in the scratch folder (aborts when the disk refuses: not a finding
// of the target, but nothing after it would be meaningful).
inline void write_file(const std::string& name, std::string_view bytes) {
  const std::filesystem::path path = scratch_folder() / name;
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) {
    std::abort();
  }
  std::fclose(out);
}

inline void remove_file(const std::string& name) {
  std::error_code ec;
  std::filesystem::remove(scratch_folder() / name, ec);
}

// The input cut at its first NUL byte (JSON text holds none): the part before and, when there
// is a NUL, the part after it.
struct split_input {
  std::string_view first;
  std::string_view second;
  bool has_second = false;
};

inline split_input split_at_nul(std::string_view input) {
  const std::size_t nul = input.find('\0');
  if (nul == std::string_view::npos) return {input, {}, false};
  return {input.substr(0, nul), input.substr(nul + 1), true};
}

}  // namespace pagedserve::fuzzing
