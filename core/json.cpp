// SPDX-License-Identifier: MIT
#include "json.h"

#include "error.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace lq::core {

namespace {
const Json kNull;
const std::string kEmpty;
const Json::Array kEmptyArray;
const Json::Object kEmptyObject;

} // namespace

std::size_t utf8SequenceLength(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80)
        return 1;
    std::size_t n;
    std::uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (cc & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

namespace {

void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

class Parser {
public:
    explicit Parser(std::string_view t)
        : m_t(t) {}
    Json parseDocument() {
        Json v = value();
        ws();
        if (m_i != m_t.size())
            fail("trailing characters");
        return v;
    }

private:
    [[noreturn]] void fail(const char* what) {
        throw Error(ErrorKind::InvalidArgument, {},
                    std::string("invalid JSON at offset ") + std::to_string(m_i) + ": " + what);
    }
    void ws() {
        while (m_i < m_t.size() &&
               (m_t[m_i] == ' ' || m_t[m_i] == '\n' || m_t[m_i] == '\t' || m_t[m_i] == '\r'))
            ++m_i;
    }
    bool lit(std::string_view w) {
        if (m_t.substr(m_i, w.size()) == w) {
            m_i += w.size();
            return true;
        }
        return false;
    }
    Json value() {
        if (++m_depth > 256)
            fail("nested too deeply");
        ws();
        if (m_i >= m_t.size())
            fail("unexpected end");
        Json out;
        const char c = m_t[m_i];
        if (c == '{')
            out = object();
        else if (c == '[')
            out = array();
        else if (c == '"')
            out = Json(string());
        else if (lit("true"))
            out = Json(true);
        else if (lit("false"))
            out = Json(false);
        else if (lit("null"))
            out = Json();
        else
            out = number();
        --m_depth;
        return out;
    }
    Json object() {
        ++m_i;
        Json::Object o;
        ws();
        if (m_i < m_t.size() && m_t[m_i] == '}') {
            ++m_i;
            return Json(std::move(o));
        }
        for (;;) {
            ws();
            if (m_i >= m_t.size() || m_t[m_i] != '"')
                fail("expected a key");
            std::string k = string();
            ws();
            if (m_i >= m_t.size() || m_t[m_i] != ':')
                fail("expected ':'");
            ++m_i;
            o.emplace_back(std::move(k), value());
            ws();
            if (m_i < m_t.size() && m_t[m_i] == ',') {
                ++m_i;
                continue;
            }
            if (m_i < m_t.size() && m_t[m_i] == '}') {
                ++m_i;
                return Json(std::move(o));
            }
            fail("expected ',' or '}'");
        }
    }
    Json array() {
        ++m_i;
        Json::Array a;
        ws();
        if (m_i < m_t.size() && m_t[m_i] == ']') {
            ++m_i;
            return Json(std::move(a));
        }
        for (;;) {
            a.push_back(value());
            ws();
            if (m_i < m_t.size() && m_t[m_i] == ',') {
                ++m_i;
                continue;
            }
            if (m_i < m_t.size() && m_t[m_i] == ']') {
                ++m_i;
                return Json(std::move(a));
            }
            fail("expected ',' or ']'");
        }
    }
    std::uint32_t hex4() {
        if (m_i + 4 > m_t.size())
            fail("short \\u escape");
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = m_t[m_i++];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= static_cast<std::uint32_t>(c - 'A' + 10);
            else
                fail("bad \\u escape");
        }
        return v;
    }
    std::string string() {
        ++m_i; // opening quote
        std::string out;
        for (;;) {
            if (m_i >= m_t.size())
                fail("unterminated string");
            const char c = m_t[m_i++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_i >= m_t.size())
                fail("unterminated escape");
            const char e = m_t[m_i++];
            switch (e) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
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
                std::uint32_t cp = hex4();
                if (cp >= 0xd800 && cp <= 0xdbff && m_t.substr(m_i, 2) == "\\u") {
                    m_i += 2;
                    const std::uint32_t lo = hex4();
                    if (lo >= 0xdc00 && lo <= 0xdfff)
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    else
                        cp = 0xfffd;
                } else if (cp >= 0xd800 && cp <= 0xdfff) {
                    cp = 0xfffd;
                }
                appendUtf8(out, cp);
                break;
            }
            default:
                fail("bad escape");
            }
        }
    }
    Json number() {
        // RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
        const std::size_t start = m_i;
        const auto digit = [&] { return m_i < m_t.size() && m_t[m_i] >= '0' && m_t[m_i] <= '9'; };
        const auto digits = [&] {
            if (!digit())
                fail("expected a digit");
            while (digit())
                ++m_i;
        };
        if (m_i < m_t.size() && m_t[m_i] == '-')
            ++m_i;
        if (!digit())
            fail("unexpected character");
        if (m_t[m_i] == '0') {
            ++m_i;
            if (digit())
                fail("leading zero in number");
        } else {
            digits();
        }
        bool isFloat = false;
        if (m_i < m_t.size() && m_t[m_i] == '.') {
            ++m_i;
            isFloat = true;
            digits();
        }
        if (m_i < m_t.size() && (m_t[m_i] == 'e' || m_t[m_i] == 'E')) {
            ++m_i;
            isFloat = true;
            if (m_i < m_t.size() && (m_t[m_i] == '+' || m_t[m_i] == '-'))
                ++m_i;
            digits();
        }
        const std::string_view num = m_t.substr(start, m_i - start);
        if (!isFloat) {
            std::int64_t v = 0;
            auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
            if (ec == std::errc() && p == num.data() + num.size())
                return Json(v);
        }
        double d = 0;
        auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), d);
        if (ec != std::errc() || p != num.data() + num.size())
            fail("bad number");
        return Json(d);
    }

    std::string_view m_t;
    std::size_t m_i = 0;
    int m_depth = 0;
};

} // namespace

bool isValidUtf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8SequenceLength(s, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

void jsonEscape(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8SequenceLength(s, i);
            if (n == 0) {
                out += "\xef\xbf\xbd"; // U+FFFD for an invalid byte
                ++i;
            } else {
                out.append(s.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
        ++i;
    }
    out += '"';
}

std::int64_t Json::toInt() const {
    if (isInt())
        return std::get<std::int64_t>(m_v);
    if (isDouble())
        return static_cast<std::int64_t>(std::get<double>(m_v));
    return 0;
}

double Json::toDouble() const {
    if (isDouble())
        return std::get<double>(m_v);
    if (isInt())
        return static_cast<double>(std::get<std::int64_t>(m_v));
    return 0;
}

const std::string& Json::toString() const {
    return isString() ? std::get<std::string>(m_v) : kEmpty;
}
const Json::Array& Json::toArray() const {
    return isArray() ? std::get<Array>(m_v) : kEmptyArray;
}
const Json::Object& Json::toObject() const {
    return isObject() ? std::get<Object>(m_v) : kEmptyObject;
}

Json::Array& Json::arrayRef() {
    if (!isArray())
        m_v = Array{};
    return std::get<Array>(m_v);
}

Json::Object& Json::objectRef() {
    if (!isObject())
        m_v = Object{};
    return std::get<Object>(m_v);
}

const Json& Json::operator[](std::string_view key) const {
    if (!isObject())
        return kNull;
    for (const auto& [k, v] : std::get<Object>(m_v))
        if (k == key)
            return v;
    return kNull;
}

bool Json::contains(std::string_view key) const {
    if (!isObject())
        return false;
    for (const auto& kv : std::get<Object>(m_v))
        if (kv.first == key)
            return true;
    return false;
}

Json& Json::set(std::string key, Json v) {
    auto& o = objectRef();
    for (auto& kv : o) {
        if (kv.first == key) {
            kv.second = std::move(v);
            return *this;
        }
    }
    o.emplace_back(std::move(key), std::move(v));
    return *this;
}

Json& Json::push(Json v) {
    arrayRef().push_back(std::move(v));
    return *this;
}

std::string Json::dump(int indent) const {
    std::string out;
    dumpTo(out, indent, 0);
    return out;
}

void Json::dumpTo(std::string& out, int indent, int level) const {
    const auto newline = [&](int lvl) {
        if (indent >= 0) {
            out += '\n';
            out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(lvl), ' ');
        }
    };
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                out += "null";
            } else if constexpr (std::is_same_v<T, bool>) {
                out += v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                out += std::to_string(v);
            } else if constexpr (std::is_same_v<T, double>) {
                if (!std::isfinite(v)) {
                    out += "null";
                } else {
                    char buf[32];
                    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
                    out.append(buf, p);
                }
            } else if constexpr (std::is_same_v<T, std::string>) {
                jsonEscape(out, v);
            } else if constexpr (std::is_same_v<T, Array>) {
                out += '[';
                for (std::size_t i = 0; i < v.size(); ++i) {
                    if (i)
                        out += ',';
                    newline(level + 1);
                    v[i].dumpTo(out, indent, level + 1);
                }
                if (!v.empty())
                    newline(level);
                out += ']';
            } else {
                out += '{';
                for (std::size_t i = 0; i < v.size(); ++i) {
                    if (i)
                        out += ',';
                    newline(level + 1);
                    jsonEscape(out, v[i].first);
                    out += indent >= 0 ? ": " : ":";
                    v[i].second.dumpTo(out, indent, level + 1);
                }
                if (!v.empty())
                    newline(level);
                out += '}';
            }
        },
        m_v);
}

Json Json::parse(std::string_view text) {
    return Parser(text).parseDocument();
}

} // namespace lq::core
