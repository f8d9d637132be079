// SPDX-License-Identifier: MIT
#include "jsonwhere.h"

#include "error.h"

#include <cctype>

namespace lq::core {

namespace {

bool identStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

bool identChar(char c) {
    return identStart(c) || std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '-';
}

[[noreturn]] void bad(std::string_view text, std::size_t at, const std::string& what) {
    throw Error(ErrorKind::InvalidArgument, "",
                "JSON condition \"" + std::string(text) + "\": " + what + " at character " +
                    std::to_string(at + 1) + " (FIELD.path [OP VALUE], OP one of " +
                    jsonConditionOperators() + ")");
}

class Parser {
public:
    explicit Parser(std::string_view text)
        : m_text(text) {}

    JsonCondition parse() {
        JsonCondition c;
        space();
        if (m_i >= m_text.size() || !identStart(m_text[m_i]) || m_text[m_i] == '$')
            bad(m_text, m_i, "expected the name of a JSON field of the job");
        c.field = ident();
        c.path = "$";
        for (;;) {
            if (peek('.')) {
                ++m_i;
                if (peek('"'))
                    key(c.path, quotedKey());
                else if (m_i < m_text.size() && identChar(m_text[m_i]))
                    key(c.path, ident());
                else
                    bad(m_text, m_i, "expected a key after '.'");
            } else if (peek('[')) {
                ++m_i;
                space();
                if (peek('"')) {
                    key(c.path, quotedKey());
                } else {
                    const std::size_t start = m_i;
                    while (m_i < m_text.size() &&
                           std::isdigit(static_cast<unsigned char>(m_text[m_i])) != 0)
                        ++m_i;
                    if (m_i == start || m_i - start > 9)
                        bad(m_text, start, "expected an array index or a quoted key in [ ]");
                    c.path += "[" + std::string(m_text.substr(start, m_i - start)) + "]";
                }
                space();
                if (!peek(']'))
                    bad(m_text, m_i, "expected ']'");
                ++m_i;
            } else {
                break;
            }
        }
        space();
        if (m_i >= m_text.size())
            return c; // the path exists
        c.op = op();
        space();
        std::string_view rest = m_text.substr(m_i);
        while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back())) != 0)
            rest.remove_suffix(1);
        if (rest.empty())
            bad(m_text, m_i, "expected a value after the operator");
        if (rest.front() == '"') {
            if (rest.size() < 2 || rest.back() != '"')
                bad(m_text, m_i, "a quoted value must end with '\"'");
            c.quoted = true;
            for (std::size_t k = 1; k + 1 < rest.size(); ++k) {
                if (rest[k] == '\\' && k + 2 < rest.size())
                    ++k;
                c.value += rest[k];
            }
        } else {
            c.value = std::string(rest);
        }
        return c;
    }

private:
    bool peek(char ch) const { return m_i < m_text.size() && m_text[m_i] == ch; }
    void space() {
        while (m_i < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_i])) != 0)
            ++m_i;
    }
    std::string ident() {
        const std::size_t start = m_i;
        while (m_i < m_text.size() && identChar(m_text[m_i]))
            ++m_i;
        return std::string(m_text.substr(start, m_i - start));
    }
    std::string quotedKey() {
        const std::size_t start = m_i++;
        std::string k;
        while (m_i < m_text.size() && m_text[m_i] != '"')
            k += m_text[m_i++];
        if (m_i >= m_text.size())
            bad(m_text, start, "unterminated quoted key");
        ++m_i;
        return k;
    }
    static void key(std::string& path, const std::string& k) {
        bool plain = !k.empty() && identStart(k[0]) && k[0] != '$';
        for (char ch : k)
            plain = plain && identChar(ch) && ch != '-';
        path += plain ? "." + k : ".\"" + k + "\"";
    }
    JsonCondition::Op op() {
        using Op = JsonCondition::Op;
        const auto two = m_text.substr(m_i, 2);
        struct Spelling {
            std::string_view text;
            Op op;
        };
        for (const Spelling s :
             {Spelling{"!=", Op::Ne}, Spelling{"<>", Op::Ne}, Spelling{"<=", Op::Le},
              Spelling{">=", Op::Ge}, Spelling{"==", Op::Eq}})
            if (two == s.text) {
                m_i += 2;
                return s.op;
            }
        const char ch = m_i < m_text.size() ? m_text[m_i] : '\0';
        ++m_i;
        switch (ch) {
        case '=':
            return Op::Eq;
        case '<':
            return Op::Lt;
        case '>':
            return Op::Gt;
        case '~':
            return Op::Like;
        default:
            bad(m_text, m_i - 1, "expected an operator");
        }
    }

    std::string_view m_text;
    std::size_t m_i = 0;
};

} // namespace

JsonCondition parseJsonCondition(std::string_view text) {
    return Parser(text).parse();
}

const char* jsonConditionOperators() noexcept {
    return "=, !=, <, <=, >, >=, ~";
}

} // namespace lq::core
