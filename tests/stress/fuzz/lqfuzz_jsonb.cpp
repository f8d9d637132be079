// SPDX-License-Identifier: MIT
// lqfuzz_jsonb: libFuzzer over core/jsonb's decoder. Any input either
// decodes or throws DecodeError: no crash, no read outside the blob (ASan),
// no other exception, and what it returns for a container is non-empty.
#include "core/jsonb.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view blob(reinterpret_cast<const char*>(data), size);
    try {
        const std::string json = lq::core::jsonb::toJson(blob);
        if (json.empty())
            std::abort(); // a decoded element always renders as something
    } catch (const lq::core::jsonb::DecodeError&) {
    }
    (void)lq::core::jsonb::looksLikeJsonb(blob);
    return 0;
}
