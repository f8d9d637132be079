// SPDX-License-Identifier: MIT
#pragma once

// A small JSON value with a strict parser and a writer. Strings are UTF-8;
// writing escapes control characters and replaces invalid UTF-8 sequences
// with U+FFFD, so any payload bytes still give valid JSON.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace lq::core {

class Json {
public:
    using Array = std::vector<Json>;
    /// Keys keep insertion order.
    using Object = std::vector<std::pair<std::string, Json>>;

    Json() = default; ///< null
    Json(std::nullptr_t) {}
    Json(bool b)
        : m_v(b) {}
    Json(int i)
        : m_v(static_cast<std::int64_t>(i)) {}
    Json(std::int64_t i)
        : m_v(i) {}
    Json(double d)
        : m_v(d) {}
    Json(const char* s)
        : m_v(std::string(s)) {}
    Json(std::string s)
        : m_v(std::move(s)) {}
    Json(std::string_view s)
        : m_v(std::string(s)) {}
    Json(Array a)
        : m_v(std::move(a)) {}
    Json(Object o)
        : m_v(std::move(o)) {}
    template <class T> Json(const std::optional<T>& o) {
        if (o)
            *this = Json(*o);
    }

    static Json array() { return Json(Array{}); }
    static Json object() { return Json(Object{}); }

    bool isNull() const { return std::holds_alternative<std::monostate>(m_v); }
    bool isBool() const { return std::holds_alternative<bool>(m_v); }
    bool isInt() const { return std::holds_alternative<std::int64_t>(m_v); }
    bool isDouble() const { return std::holds_alternative<double>(m_v); }
    bool isNumber() const { return isInt() || isDouble(); }
    bool isString() const { return std::holds_alternative<std::string>(m_v); }
    bool isArray() const { return std::holds_alternative<Array>(m_v); }
    bool isObject() const { return std::holds_alternative<Object>(m_v); }

    bool toBool() const { return isBool() && std::get<bool>(m_v); }
    std::int64_t toInt() const;
    double toDouble() const;
    const std::string& toString() const;
    const Array& toArray() const;
    const Object& toObject() const;
    Array& arrayRef();
    Object& objectRef();

    /// Object member (null Json if absent or not an object).
    const Json& operator[](std::string_view key) const;
    bool contains(std::string_view key) const;
    /// Sets or replaces an object member.
    Json& set(std::string key, Json v);
    /// Appends to an array.
    Json& push(Json v);

    /// Compact (indent < 0) or pretty text.
    std::string dump(int indent = -1) const;
    /// Throws lq::core::Error(InvalidArgument) with position on bad input.
    static Json parse(std::string_view text);

private:
    void dumpTo(std::string& out, int indent, int level) const;
    std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> m_v;
};

/// Appends `s` as a JSON string literal (quotes included) to `out`.
void jsonEscape(std::string& out, std::string_view s);
/// Length of the valid UTF-8 sequence starting at s[i], 0 when invalid
/// (overlong forms, surrogates and values past U+10FFFF are invalid).
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);
/// True when `s` is valid UTF-8.
bool isValidUtf8(std::string_view s);

} // namespace lq::core
