// SPDX-License-Identifier: MIT
#pragma once

// lq::core::jsonb — SQLite's binary JSON (JSONB, SQLite >= 3.45) read by our
// own decoder, so that files written by a newer SQLite (River's schema v7
// stores args, errors and metadata as JSONB) open on the system SQLite,
// which may be older (Debian 12 ships 3.40). The format is documented at
// https://sqlite.org/jsonb.html: every element is a header (type in the low
// four bits, size encoding in the high four) followed by its payload.

#include <stdexcept>
#include <string>
#include <string_view>

namespace lq::core::jsonb {

/// A blob that is not valid JSONB: what is wrong and at which byte.
class DecodeError : public std::runtime_error {
public:
    DecodeError(const std::string& what, std::size_t offset)
        : std::runtime_error(what + " at byte " + std::to_string(offset))
        , m_offset(offset) {}
    std::size_t offset() const noexcept { return m_offset; }

private:
    std::size_t m_offset;
};

/// The blob as canonical RFC 8259 JSON text (no insignificant whitespace;
/// JSON5 numbers and escapes made canonical). Throws DecodeError for a
/// truncated or malformed blob, trailing bytes, reserved element types or
/// nesting deeper than 1000. Never reads outside `blob`.
std::string toJson(std::string_view blob);

/// A cheap check that `blob` is one complete JSONB element whose top level
/// is an object or an array (what queue libraries store): tells JSONB from
/// text JSON or another binary payload without decoding it all.
bool looksLikeJsonb(std::string_view blob) noexcept;

} // namespace lq::core::jsonb
