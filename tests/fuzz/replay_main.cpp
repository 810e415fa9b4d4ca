// main() for a fuzz target built without libFuzzer: runs the target once on
// every file named, or on every file in a directory named. CTest uses it to
// replay the seed corpus (and any crash reproducer added to it) in every
// build, sanitizer builds included. A finding aborts, as under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int replay(const std::filesystem::path& file) {
    std::ifstream f(file, std::ios::binary);
    if (!f) {
        std::fprintf(stderr, "cannot read %s\n", file.c_str());
        return 1;
    }
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int failed = 0, ran = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path arg(argv[i]);
        if (std::filesystem::is_directory(arg)) {
            std::vector<std::filesystem::path> files;
            for (const auto& e : std::filesystem::directory_iterator(arg))
                if (e.is_regular_file()) files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const auto& f : files) failed += replay(f), ++ran;
        } else {
            failed += replay(arg), ++ran;
        }
    }
    std::printf("replayed %d inputs\n", ran);
    if (ran == 0) {
        std::fprintf(stderr, "no inputs: name corpus directories or files\n");
        return 1;
    }
    return failed ? 1 : 0;
}
