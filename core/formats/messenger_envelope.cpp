// SPDX-License-Identifier: MIT
// A Symfony Messenger envelope read as text (messenger_envelope.h). The
// encodings are those of symfony/messenger 5.4
// Transport/Serialization/PhpSerializer.php (encode: addslashes(serialize()),
// base64 when not UTF-8; decode: base64 when the body does not end in "}",
// then stripslashes) and Transport/Serialization/Serializer.php (a "type"
// header and one "X-Message-Stamp-<class>" header per stamp class, each a
// JSON array). serialize()'s grammar (N; b: i: d: s: a: O: C: E: r: R:) is
// parsed into a tree of values; nothing is ever unserialized.
#include "messenger_envelope.h"

#include "../json.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

namespace lq::core::messenger {

namespace {

constexpr std::string_view kStampPrefix = "X-Message-Stamp-";
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxNodes = 200'000;

struct PhpEntry;

/// One value of PHP's serialize() output. An array or object keeps its
/// entries in order; a key is kept as its text (an object's private and
/// protected property names keep their "\0Class\0" prefix).
struct PhpValue {
    char type = 'N';  ///< N b i d s a O C E r R
    std::string text; ///< a scalar's text, a string's bytes, an object's class
    std::vector<PhpEntry> items;
};

struct PhpEntry {
    std::string key;
    PhpValue value;
};

/// The entry of `v` whose key (an object's property name without its
/// visibility prefix) is `name`; the last one when several are.
const PhpValue* find(const PhpValue& v, std::string_view name) {
    const PhpValue* out = nullptr;
    for (const PhpEntry& e : v.items) {
        const auto nul = e.key.rfind('\0');
        const std::string_view bare = nul == std::string::npos
                                          ? std::string_view(e.key)
                                          : std::string_view(e.key).substr(nul + 1);
        if (bare == name)
            out = &e.value;
    }
    return out;
}

std::optional<std::string> stringOf(const PhpValue& v, std::string_view name) {
    const PhpValue* s = find(v, name);
    if (!s || s->type != 's')
        return std::nullopt;
    return s->text;
}

class Parser {
public:
    explicit Parser(std::string_view s)
        : m_s(s) {}

    bool whole(PhpValue& out) { return value(out, 0) && m_p == m_s.size(); }

private:
    bool eat(char c) {
        if (m_p >= m_s.size() || m_s[m_p] != c)
            return false;
        ++m_p;
        return true;
    }
    /// The text up to `end` (not included), which is consumed.
    bool until(char end, std::string& out) {
        const auto e = m_s.find(end, m_p);
        if (e == std::string_view::npos)
            return false;
        out.assign(m_s.substr(m_p, e - m_p));
        m_p = e + 1;
        return true;
    }
    bool count(std::size_t& n) {
        std::size_t v = 0;
        const std::size_t start = m_p;
        while (m_p < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_p]))) {
            v = v * 10 + static_cast<std::size_t>(m_s[m_p] - '0');
            if (v > m_s.size())
                return false;
            ++m_p;
        }
        n = v;
        return m_p > start;
    }
    /// LEN:"bytes" (the bytes may hold anything, quotes included).
    bool quoted(std::string& out) {
        std::size_t n = 0;
        if (!count(n) || !eat(':') || !eat('"') || m_s.size() - m_p < n)
            return false;
        out.assign(m_s.substr(m_p, n));
        m_p += n;
        return eat('"');
    }
    bool entries(PhpValue& out, int depth) {
        std::size_t n = 0;
        if (!count(n) || !eat(':') || !eat('{'))
            return false;
        out.items.reserve(std::min<std::size_t>(n, 64));
        for (std::size_t i = 0; i < n; ++i) {
            PhpValue key;
            if (!value(key, depth + 1) || (key.type != 's' && key.type != 'i'))
                return false;
            PhpValue v;
            if (!value(v, depth + 1))
                return false;
            out.items.push_back({std::move(key.text), std::move(v)});
        }
        return eat('}');
    }
    bool value(PhpValue& out, int depth) {
        if (depth > kMaxDepth || ++m_nodes > kMaxNodes || m_p + 1 >= m_s.size())
            return false;
        out.type = m_s[m_p++];
        switch (out.type) {
        case 'N':
            return eat(';');
        case 'b':
        case 'i':
        case 'd':
        case 'r':
        case 'R':
            return eat(':') && until(';', out.text);
        case 's':
        case 'E':
            return eat(':') && quoted(out.text) && eat(';');
        case 'a':
            return eat(':') && entries(out, depth);
        case 'O':
            return eat(':') && quoted(out.text) && eat(':') && entries(out, depth);
        case 'C': {
            // Serializable::serialize()'s own text, kept as it is.
            std::string cls;
            std::size_t n = 0;
            if (!eat(':') || !quoted(cls) || !eat(':') || !count(n) || !eat(':') || !eat('{') ||
                m_s.size() - m_p < n)
                return false;
            out.text = std::move(cls);
            out.items.push_back({"", PhpValue{'s', std::string(m_s.substr(m_p, n)), {}}});
            m_p += n;
            return eat('}');
        }
        default:
            return false;
        }
    }

    std::string_view m_s;
    std::size_t m_p = 0;
    std::size_t m_nodes = 0;
};

std::string base64Decode(std::string_view in) {
    std::array<int, 256> map{};
    map.fill(-1);
    const std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i)
        map[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
    std::string out;
    out.reserve(in.size() / 4 * 3);
    unsigned bits = 0;
    int have = 0;
    for (const char c : in) {
        const int v = map[static_cast<unsigned char>(c)];
        if (v < 0)
            continue; // base64_decode() skips what is not in the alphabet
        bits = (bits << 6) | static_cast<unsigned>(v);
        have += 6;
        if (have >= 8) {
            have -= 8;
            out.push_back(static_cast<char>((bits >> have) & 0xFF));
        }
    }
    return out;
}

bool endsWith(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// The stamps of class `suffix` ("\\ErrorDetailsStamp") in an envelope's
/// stamps array, in the order stored.
const PhpValue* stampsOf(const PhpValue& stamps, std::string_view suffix) {
    for (const PhpEntry& e : stamps.items)
        if (endsWith(e.key, suffix) && e.value.type == 'a')
            return &e.value;
    return nullptr;
}

void fromPhp(const PhpValue& root, EnvelopeFacts& f) {
    if (root.type != 'O')
        return;
    if (const PhpValue* m = find(root, "message"); m && (m->type == 'O' || m->type == 'C'))
        f.messageClass = m->text;
    const PhpValue* stamps = find(root, "stamps");
    if (!stamps || stamps->type != 'a')
        return;
    if (const PhpValue* errs = stampsOf(*stamps, "\\ErrorDetailsStamp");
        errs && !errs->items.empty()) {
        const PhpValue& e = errs->items.back().value;
        f.errorClass = stringOf(e, "exceptionClass");
        f.errorMessage = stringOf(e, "exceptionMessage");
        if (const PhpValue* fe = find(e, "flattenException"); fe && fe->type == 'O')
            f.errorTrace = stringOf(*fe, "traceAsString");
    }
    if (const PhpValue* rs = stampsOf(*stamps, "\\RedeliveryStamp")) {
        for (const PhpEntry& entry : rs->items) {
            const PhpValue& r = entry.value;
            if (const PhpValue* n = find(r, "retryCount"); n && n->type == 'i') {
                try {
                    f.retries = std::max<std::int64_t>(f.retries.value_or(0), std::stoll(n->text));
                } catch (const std::exception&) {
                }
            }
            // Before Symfony 5.2 the error was the RedeliveryStamp's.
            if (!f.errorClass && !f.errorMessage)
                if (auto msg = stringOf(r, "exceptionMessage")) {
                    f.errorMessage = std::move(msg);
                    if (const PhpValue* fe = find(r, "flattenException"); fe && fe->type == 'O') {
                        f.errorClass = stringOf(*fe, "class");
                        f.errorTrace = stringOf(*fe, "traceAsString");
                    }
                }
        }
    }
    if (const PhpValue* sent = stampsOf(*stamps, "\\SentToFailureTransportStamp");
        sent && !sent->items.empty())
        f.failedOn = stringOf(sent->items.back().value, "originalReceiverName");
}

std::optional<std::string> jsonString(const Json& o, std::string_view key) {
    const Json& v = o[key];
    if (!v.isString())
        return std::nullopt;
    return v.toString();
}

/// Symfony's Serializer: {"type": CLASS, "X-Message-Stamp-CLASS": "[...]"}.
bool fromJsonHeaders(std::string_view headers, EnvelopeFacts& f) {
    Json h;
    try {
        h = Json::parse(headers);
    } catch (const std::exception&) {
        return false;
    }
    if (!h.isObject() || !h["type"].isString())
        return false;
    f.messageClass = h["type"].toString();
    const auto stamps = [&](std::string_view suffix) -> Json {
        for (const auto& [k, v] : h.toObject())
            if (k.rfind(kStampPrefix, 0) == 0 && endsWith(k, suffix) && v.isString()) {
                try {
                    Json list = Json::parse(v.toString());
                    if (list.isArray())
                        return list;
                } catch (const std::exception&) {
                }
            }
        return Json::array();
    };
    if (const Json errs = stamps("\\ErrorDetailsStamp"); !errs.toArray().empty()) {
        const Json& e = errs.toArray().back();
        if (e.isObject()) {
            f.errorClass = jsonString(e, "exceptionClass");
            f.errorMessage = jsonString(e, "exceptionMessage");
            if (const Json& fe = e["flattenException"]; fe.isObject())
                f.errorTrace = jsonString(fe, "trace_as_string");
        }
    }
    const Json redeliveries = stamps("\\RedeliveryStamp");
    for (const Json& r : redeliveries.toArray())
        if (r.isObject() && r["retryCount"].isInt())
            f.retries = std::max(f.retries.value_or(0), r["retryCount"].toInt());
    if (const Json sent = stamps("\\SentToFailureTransportStamp"); !sent.toArray().empty())
        if (const Json& s = sent.toArray().back(); s.isObject())
            f.failedOn = jsonString(s, "originalReceiverName");
    return true;
}

} // namespace

std::string stripSlashes(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out.push_back(s[i]);
            continue;
        }
        if (++i == s.size())
            break; // a lone trailing backslash is dropped
        out.push_back(s[i] == '0' ? '\0' : s[i]);
    }
    return out;
}

std::optional<std::string> EnvelopeFacts::errorText() const {
    if (!errorClass && !errorMessage)
        return std::nullopt;
    std::string t = errorClass.value_or("");
    if (errorMessage)
        t += (t.empty() ? "" : ": ") + *errorMessage;
    if (errorTrace && !errorTrace->empty())
        t += "\n" + *errorTrace;
    return t;
}

EnvelopeFacts readEnvelope(std::string_view body, std::string_view headers) {
    EnvelopeFacts f;
    const bool php = body.rfind("O:", 0) == 0 || body.rfind("a:", 0) == 0;
    if (!php && fromJsonHeaders(headers, f)) {
        f.encoding = "json";
        return f;
    }
    std::string text;
    if (endsWith(body, "}")) {
        text = stripSlashes(body);
        f.encoding = "php";
    } else {
        text = stripSlashes(base64Decode(body));
        f.encoding = "php-base64";
    }
    PhpValue root;
    if (!Parser(text).whole(root)) {
        f = EnvelopeFacts{};
        return f;
    }
    fromPhp(root, f);
    return f;
}

} // namespace lq::core::messenger
