// SPDX-License-Identifier: MIT
#include "jsonb.h"

#include "json.h"

#include <cstdint>

namespace lq::core::jsonb {

namespace {

enum Type : unsigned {
    Null = 0,
    True = 1,
    False = 2,
    Int = 3,
    Int5 = 4,
    Float = 5,
    Float5 = 6,
    Text = 7,
    TextJ = 8,
    Text5 = 9,
    TextRaw = 10,
    Array = 11,
    Object = 12,
};

constexpr int kMaxDepth = 1000;

struct Header {
    unsigned type = 0;
    std::size_t headerSize = 0;
    std::size_t payloadSize = 0;
};

/// The header at `at`; nothing past `end` is read.
bool readHeader(std::string_view b, std::size_t at, std::size_t end, Header& h) {
    if (at >= end)
        return false;
    const auto first = static_cast<unsigned char>(b[at]);
    h.type = first & 0x0Fu;
    const unsigned sz = first >> 4;
    if (sz <= 11) {
        h.headerSize = 1;
        h.payloadSize = sz;
    } else {
        const std::size_t n = sz == 12 ? 1 : sz == 13 ? 2 : sz == 14 ? 4 : 8;
        if (end - at < 1 + n)
            return false;
        std::uint64_t v = 0;
        for (std::size_t k = 0; k < n; ++k)
            v = (v << 8) | static_cast<unsigned char>(b[at + 1 + k]);
        h.headerSize = 1 + n;
        if (v > end - at - h.headerSize)
            return false;
        h.payloadSize = static_cast<std::size_t>(v);
    }
    return end - at - h.headerSize >= h.payloadSize;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

class Decoder {
public:
    explicit Decoder(std::string_view b)
        : m_b(b) {}

    /// Renders the element at `at` (ending no later than `end`); returns the
    /// offset just past it.
    std::size_t element(std::size_t at, std::size_t end, int depth, std::string& out) {
        if (depth >= kMaxDepth)
            throw DecodeError("JSONB nested deeper than 1000", at);
        Header h;
        if (!readHeader(m_b, at, end, h))
            throw DecodeError("truncated JSONB element", at);
        const std::size_t p = at + h.headerSize;
        const std::string_view payload = m_b.substr(p, h.payloadSize);
        switch (h.type) {
        case Null:
        case True:
        case False:
            if (h.payloadSize != 0)
                throw DecodeError("JSONB null/true/false with a payload", at);
            out += h.type == Null ? "null" : h.type == True ? "true" : "false";
            break;
        case Int:
            checkNumber(payload, false, at);
            out += payload;
            break;
        case Int5:
            int5(payload, at, out);
            break;
        case Float:
            checkNumber(payload, true, at);
            out += payload;
            break;
        case Float5:
            float5(payload, at, out);
            break;
        case Text:
        case TextRaw:
            jsonEscape(out, payload);
            break;
        case TextJ:
        case Text5:
            jsonEscape(out, unescape(payload, h.type == Text5, p));
            break;
        case Array: {
            out += '[';
            std::size_t i = p;
            const std::size_t stop = p + h.payloadSize;
            bool first = true;
            while (i < stop) {
                if (!first)
                    out += ',';
                first = false;
                i = element(i, stop, depth + 1, out);
            }
            out += ']';
            break;
        }
        case Object: {
            out += '{';
            std::size_t i = p;
            const std::size_t stop = p + h.payloadSize;
            bool first = true;
            while (i < stop) {
                if (!first)
                    out += ',';
                first = false;
                Header label;
                if (!readHeader(m_b, i, stop, label) || label.type < Text || label.type > TextRaw)
                    throw DecodeError("JSONB object label is not a string", i);
                i = element(i, stop, depth + 1, out);
                out += ':';
                if (i >= stop)
                    throw DecodeError("JSONB object label without a value", i);
                i = element(i, stop, depth + 1, out);
            }
            out += '}';
            break;
        }
        default:
            throw DecodeError("reserved JSONB element type " + std::to_string(h.type), at);
        }
        return p + h.payloadSize;
    }

private:
    /// Canonical RFC 8259 number text.
    static void checkNumber(std::string_view s, bool isFloat, std::size_t at) {
        std::size_t i = 0;
        if (i < s.size() && s[i] == '-')
            ++i;
        const std::size_t digits = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i;
        bool ok = i > digits;
        if (isFloat) {
            if (i < s.size() && s[i] == '.') {
                ++i;
                const std::size_t frac = i;
                while (i < s.size() && s[i] >= '0' && s[i] <= '9')
                    ++i;
                ok = ok && i > frac;
            }
            if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
                ++i;
                if (i < s.size() && (s[i] == '+' || s[i] == '-'))
                    ++i;
                const std::size_t exp = i;
                while (i < s.size() && s[i] >= '0' && s[i] <= '9')
                    ++i;
                ok = ok && i > exp;
            }
        }
        if (!ok || i != s.size())
            throw DecodeError("malformed JSONB number", at);
    }

    /// JSON5 integer: optional sign, decimal or 0x hex.
    static void int5(std::string_view s, std::size_t at, std::string& out) {
        bool negative = false;
        if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
            negative = s[0] == '-';
            s.remove_prefix(1);
        }
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            long double v = 0;
            for (char c : s.substr(2)) {
                const int h = hexValue(c);
                if (h < 0)
                    throw DecodeError("malformed JSONB hex integer", at);
                v = v * 16 + h;
            }
            if (v <= 9007199254740992.0L) {
                out += negative ? "-" : "";
                out += std::to_string(static_cast<std::uint64_t>(v));
            } else {
                out += negative ? "-" : "";
                out += std::to_string(static_cast<double>(v));
            }
            return;
        }
        checkNumber(s, false, at);
        out += negative ? "-" : "";
        out += s;
    }

    /// JSON5 float: optional '+', leading or trailing '.', Infinity, NaN.
    static void float5(std::string_view s, std::size_t at, std::string& out) {
        std::string sign;
        if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
            if (s[0] == '-')
                sign = "-";
            s.remove_prefix(1);
        }
        if (s == "Infinity" || s == "Inf") {
            out += sign;
            out += "9e999"; // as SQLite renders it
            return;
        }
        if (s == "NaN") {
            out += "null"; // as SQLite renders it
            return;
        }
        // Built by appending (GCC 12's -O3 -Wrestrict misfires on insert()).
        std::string t;
        if (!s.empty() && s[0] == '.')
            t += '0';
        const auto dot = s.find('.');
        if (dot != std::string_view::npos &&
            (dot + 1 == s.size() || s[dot + 1] == 'e' || s[dot + 1] == 'E')) {
            t += s.substr(0, dot + 1);
            t += '0';
            t += s.substr(dot + 1);
        } else {
            t += s;
        }
        if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            int5(sign + t, at, out);
            return;
        }
        checkNumber(t, true, at);
        out += sign;
        out += t;
    }

    /// The string a TEXTJ / TEXT5 payload stands for, escapes resolved.
    static std::string unescape(std::string_view s, bool json5, std::size_t at) {
        std::string out;
        out.reserve(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] != '\\') {
                out += s[i];
                continue;
            }
            if (++i >= s.size())
                throw DecodeError("JSONB string ends in a backslash", at);
            const char c = s[i];
            switch (c) {
            case '"':
            case '\\':
            case '/':
                out += c;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                std::uint32_t cp = hex4(s, i + 1, at);
                i += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < s.size() && s[i + 1] == '\\' &&
                    s[i + 2] == 'u') {
                    const std::uint32_t lo = hex4(s, i + 3, at);
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                if (cp >= 0xD800 && cp <= 0xDFFF)
                    cp = 0xFFFD; // a lone surrogate
                appendUtf8(out, cp);
                break;
            }
            default:
                if (!json5)
                    throw DecodeError("invalid escape in a JSONB string", at);
                if (c == '\'') {
                    out += '\'';
                } else if (c == 'v') {
                    out += '\v';
                } else if (c == '0') {
                    out += '\0';
                } else if (c == 'x') {
                    if (i + 2 >= s.size() || hexValue(s[i + 1]) < 0 || hexValue(s[i + 2]) < 0)
                        throw DecodeError("invalid \\x escape in a JSONB string", at);
                    appendUtf8(out, std::uint32_t(hexValue(s[i + 1]) * 16 + hexValue(s[i + 2])));
                    i += 2;
                } else if (c == '\n') {
                    // a line continuation
                } else if (c == '\r') {
                    if (i + 1 < s.size() && s[i + 1] == '\n')
                        ++i;
                } else if (s.substr(i, 3) == "\xe2\x80\xa8" || s.substr(i, 3) == "\xe2\x80\xa9") {
                    i += 2; // U+2028 / U+2029 continuation
                } else {
                    throw DecodeError("invalid escape in a JSONB string", at);
                }
            }
        }
        return out;
    }

    static std::uint32_t hex4(std::string_view s, std::size_t i, std::size_t at) {
        if (i + 4 > s.size())
            throw DecodeError("truncated \\u escape in a JSONB string", at);
        std::uint32_t v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const int h = hexValue(s[i + k]);
            if (h < 0)
                throw DecodeError("invalid \\u escape in a JSONB string", at);
            v = v * 16 + std::uint32_t(h);
        }
        return v;
    }

    std::string_view m_b;
};

} // namespace

std::string toJson(std::string_view blob) {
    if (blob.empty())
        throw DecodeError("empty JSONB blob", 0);
    std::string out;
    out.reserve(blob.size() + blob.size() / 4);
    Decoder d(blob);
    const std::size_t end = d.element(0, blob.size(), 0, out);
    if (end != blob.size())
        throw DecodeError("trailing bytes after the JSONB element", end);
    return out;
}

bool looksLikeJsonb(std::string_view blob) noexcept {
    Header h;
    return readHeader(blob, 0, blob.size(), h) && (h.type == Array || h.type == Object) &&
           h.headerSize + h.payloadSize == blob.size();
}

} // namespace lq::core::jsonb
