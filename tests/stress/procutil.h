// SPDX-License-Identifier: MIT
#pragma once

// What the stress helper processes (lqstress, lqjobstress, lqmodel) share: a
// monotonic clock, short sleeps, a log that survives kill -9 line by line,
// `--key value` arguments and the stop file.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

namespace lqproc {

inline std::int64_t mono() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

inline void sleepUs(std::int64_t us) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
}

/// One log file, line-buffered so that every line reaches the kernel as one
/// write(2) and survives a kill -9 of this process.
class Log {
public:
    /// `mode` "a" appends (a log several processes of one run share).
    Log(const std::string& path, const char* program, const char* mode = "w") {
        m_f = path.empty() ? stdout : std::fopen(path.c_str(), mode);
        if (!m_f) {
            std::fprintf(stderr, "%s: cannot write %s\n", program, path.c_str());
            std::exit(2);
        }
        std::setvbuf(m_f, nullptr, _IOLBF, 1 << 16);
    }
    ~Log() {
        if (m_f && m_f != stdout)
            std::fclose(m_f);
    }
    Log(const Log&) = delete;
    Log& operator=(const Log&) = delete;

    template <class... A> void line(const char* fmt, A... args) {
        std::fprintf(m_f, fmt, args...);
        std::fputc('\n', m_f);
    }
    void line(const std::string& s) { line("%s", s.c_str()); }

private:
    std::FILE* m_f = nullptr;
};

struct Args {
    std::string role;
    std::string file;
    std::map<std::string, std::string> opts;

    std::string str(const std::string& k, const std::string& def = {}) const {
        auto it = opts.find(k);
        return it == opts.end() ? def : it->second;
    }
    std::int64_t num(const std::string& k, std::int64_t def) const {
        auto it = opts.find(k);
        return it == opts.end() ? def : std::strtoll(it->second.c_str(), nullptr, 10);
    }
};

inline bool stopRequested(const std::string& stopFile) {
    std::error_code ec;
    return !stopFile.empty() && std::filesystem::exists(stopFile, ec);
}

} // namespace lqproc
