// SPDX-License-Identifier: MIT
// lqfuzz_replay FILE...: runs the fuzz target once on each file, without
// libFuzzer, so the seeds and every input the fuzzer ever found stay a
// regression test in the ordinary (and the ASan) build.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "lqfuzz_replay: cannot read %s\n", argv[i]);
            return 2;
        }
        const std::string bytes(std::istreambuf_iterator<char>(in), {});
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    // The target's private temp folder (see lqfuzz_open.cpp).
    const char* tmp = std::getenv("TMPDIR");
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                                    ("lqfuzz-" + std::to_string(getpid())),
                                ec);
    std::printf("lqfuzz_replay: %d inputs, no crash\n", argc - 1);
    return 0;
}
