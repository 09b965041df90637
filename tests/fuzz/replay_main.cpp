// A plain main for the fuzz harness (tests/fuzz/fuzz_attend.cpp): runs LLVMFuzzerTestOneInput once
// on every file named on the command line, or found under a named folder, in sorted order. No
// fuzzing, no mutation, no libFuzzer: it replays the committed corpus under ASan + UBSan in the
// sanitize suite (CMake target fuzz_replay). It understands the one libFuzzer flag the replay
// needs, -timeout=N (seconds per input; an input that takes longer fails, naming its file), and
// ignores the other -flags so tests/fuzz/replay.sh drives it like the libFuzzer binary. Memory
// limits come from the sanitizer (replay.sh sets malloc_limit_mb and hard_rss_limit_mb).
#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

std::string g_current;  // the input being run, for the timeout message

void on_timeout(int) {
  // Only async-signal-safe calls here.
  const char head[] = "fuzz replay: timeout on ";
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, g_current.data(), g_current.size());
  (void)!write(2, "\n", 1);
  _exit(70);
}

std::vector<std::filesystem::path> inputs_in(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) out.push_back(entry.path());
    }
  } else {
    out.push_back(path);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned timeout_seconds = 0;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-timeout=", 0) == 0) {
      timeout_seconds = static_cast<unsigned>(std::strtoul(arg.c_str() + 9, nullptr, 10));
    } else if (arg.rfind('-', 0) == 0) {
      continue;  // another libFuzzer flag: not needed to replay
    } else if (!std::filesystem::exists(arg)) {
      std::fprintf(stderr, "fuzz replay: %s: no such file or folder\n", arg.c_str());
      return 2;
    } else {
      auto found = inputs_in(arg);
      files.insert(files.end(), found.begin(), found.end());
    }
  }
  std::sort(files.begin(), files.end());
  std::signal(SIGALRM, on_timeout);
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    g_current = file.string();
    alarm(timeout_seconds);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    alarm(0);
  }
  std::fprintf(stderr, "fuzz replay: %zu inputs run\n", files.size());
  return 0;
}
