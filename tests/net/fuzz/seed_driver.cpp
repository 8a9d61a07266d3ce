// Runs a fuzz target's LLVMFuzzerTestOneInput over every file of the folders given, once
// each, as libFuzzer would replay a corpus: the seeds stay exercised in every build (GCC
// and the sanitizer build included), where libFuzzer itself is not linked.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::size_t num_inputs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    if (files.empty()) {
      std::fprintf(stderr, "no seeds in %s\n", argv[i]);
      return 1;
    }
    for (const auto& file : files) {
      std::string bytes(std::filesystem::file_size(file), '\0');
      std::FILE* in = std::fopen(file.c_str(), "rb");
      if (in == nullptr || std::fread(bytes.data(), 1, bytes.size(), in) != bytes.size()) {
        std::fprintf(stderr, "cannot read %s\n", file.c_str());
        return 1;
      }
      std::fclose(in);
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++num_inputs;
    }
  }
  std::printf("%zu inputs ran\n", num_inputs);
  return 0;
}
