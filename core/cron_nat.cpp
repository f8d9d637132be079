// SPDX-License-Identifier: MIT
// Fugit's natural-language schedules ("every hour at minute 12", "at 7am
// every day"), read as Fugit::Nat reads them (floraison/fugit@efda655251c2
// lib/fugit/nat.rb): an ordered-choice grammar whose pieces become slots,
// merged by Fugit's weak/strong rule into one cron line. Written anew from
// the behaviour; tst_cron checks test/_nat_single_crons.txt. See cron.h.
#include "cron.h"

#include <algorithm>
#include <map>
#include <regex>

namespace lq::core::cron {

namespace {

/// A slot value: an integer or a text ("*", "*/3", "8-17", "L").
struct Val {
    bool isInt = false;
    int n = 0;
    std::string s;
    std::string text() const { return isInt ? std::to_string(n) : s; }
    bool operator==(const Val& o) const { return isInt == o.isInt && n == o.n && s == o.s; }
};
Val iv(int n) {
    return {true, n, {}};
}
Val sv(std::string s) {
    return {false, 0, std::move(s)};
}

/// A slot's datum as Ruby holds it: nothing, one value, or a list.
struct Datum {
    bool nil = true;
    bool list = false;
    std::vector<Val> items;
    static Datum one(Val v) { return {false, false, {std::move(v)}}; }
    static Datum many(std::vector<Val> v) { return {false, true, std::move(v)}; }
    bool isStar() const { return !nil && !list && !items[0].isInt && items[0].s == "*"; }
    /// Slot#to_a: "*" is no value.
    std::vector<Val> values() const { return isStar() || nil ? std::vector<Val>{} : items; }
};

constexpr int kNone = -1;
constexpr int kTrue = 2; ///< `weak: true` / `strong: true`: either index

struct Slot {
    std::string key; ///< "hm", "monthday", "weekday", "month", "second", "tz", ...
    Datum d0, d1;
    int weak = kNone, strong = kNone;
    bool diverges = false; ///< "8:30 to 5pm": Fugit raises once it rewrites it

    bool graded() const { return weak != kNone || strong != kNone; }
    std::optional<std::pair<int, int>> hourRange() const {
        static const std::regex re("^(\\d+)-(\\d+)$");
        std::smatch m;
        if (key != "hm" || d1.nil || d1.list || !d1.items[0].isInt || d1.items[0].n != 0 ||
            d0.nil || d0.list || d0.items[0].isInt || !std::regex_match(d0.items[0].s, m, re))
            return std::nullopt;
        return std::make_pair(std::stoi(m[1].str()), std::stoi(m[2].str()));
    }
    Datum conflate(int index, const Slot& o) const {
        const Datum& a = index == 0 ? d0 : d1;
        const Datum& b = index == 0 ? o.d0 : o.d1;
        if (b.nil)
            return a;
        if (a.nil)
            return b;
        const auto rangeTo = [](std::pair<int, int> r) {
            const int h1 = r.second - 1;
            return r.first == h1
                       ? Datum::one(iv(r.first))
                       : Datum::one(sv(std::to_string(r.first) + "-" + std::to_string(h1)));
        };
        if (index == 0 && o.strong == 1)
            if (const auto r = hourRange())
                return rangeTo(*r);
        if (index == 0 && strong == 1)
            if (const auto r = o.hourRange())
                return rangeTo(*r);
        if (strong == index || strong == kTrue)
            return a;
        if (o.strong == index || o.strong == kTrue)
            return b;
        if (o.weak == index || o.weak == kTrue)
            return a;
        if (weak == index || weak == kTrue)
            return b;
        if (a.isStar() && b.isStar())
            return Datum::many({sv("*")});
        std::vector<Val> v = a.values();
        const std::vector<Val> w = b.values();
        v.insert(v.end(), w.begin(), w.end());
        return Datum::many(std::move(v));
    }
    void append(const Slot& o) {
        Datum n0 = conflate(0, o), n1 = conflate(1, o);
        d0 = std::move(n0);
        d1 = std::move(n1);
        weak = strong = kNone;
        diverges = diverges || o.diverges;
    }
};

Slot slot(std::string key, Datum d0, Datum d1 = {}, int weak = kNone, int strong = kNone) {
    return {std::move(key), std::move(d0), std::move(d1), weak, strong, false};
}

std::string lowered(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::regex ri(const std::string& re) {
    return std::regex(re, std::regex::ECMAScript | std::regex::icase);
}
std::regex rc(const std::string& re) {
    return std::regex(re, std::regex::ECMAScript);
}

const char* const kOneToNine[] = {"one", "two",   "three", "four", "five",
                                  "six", "seven", "eight", "nine"};

/// zero..fifty-nine as Fugit spells them, in its order ("twenty" before
/// "twenty-one": the regex alternation is ordered like Fugit's).
const std::vector<std::string>& sixties() {
    static const std::vector<std::string> v = [] {
        std::vector<std::string> out = {"zero"};
        out.insert(out.end(), std::begin(kOneToNine), std::end(kOneToNine));
        for (const char* t : {"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                              "sixteen", "seventeen", "eighteen", "nineteen"})
            out.emplace_back(t);
        for (const char* tens : {"twenty", "thirty", "forty", "fifty"}) {
            out.emplace_back(tens);
            for (const char* one : kOneToNine)
                out.push_back(std::string(tens) + "-" + one);
        }
        return out;
    }();
    return v;
}

std::string alternation(const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys)
        out += (out.empty() ? "" : "|") + k;
    return out;
}

/// Ordinal month days: "1st", "first", "last", in Fugit's key order.
const std::vector<std::pair<std::string, Val>>& ordinals() {
    static const std::vector<std::pair<std::string, Val>> v = [] {
        std::vector<std::pair<std::string, Val>> out = {
            {"1st", iv(1)},   {"2nd", iv(2)},   {"3rd", iv(3)},   {"21st", iv(21)},
            {"22nd", iv(22)}, {"23rd", iv(23)}, {"31st", iv(31)}, {"last", sv("L")}};
        for (int i = 4; i <= 30; ++i)
            out.emplace_back(std::to_string(i) + "th", iv(i));
        const char* const words[] = {
            "first",        "second",         "third",         "fourth",        "fifth",
            "sixth",        "seventh",        "eighth",        "ninth",         "tenth",
            "eleventh",     "twelfth",        "thirteenth",    "fourteenth",    "fifteenth",
            "sixteenth",    "seventeenth",    "eighteenth",    "nineteenth",    "twentieth",
            "twenty-first", "twenty-second",  "twenty-third",  "twenty-fourth", "twenty-fifth",
            "twenty-sixth", "twenty-seventh", "twenty-eighth", "twenty-ninth",  "thirtieth",
            "thirty-first"};
        for (int i = 0; i < 31; ++i)
            out.emplace_back(words[i], iv(i + 1));
        return out;
    }();
    return v;
}

class Parser {
public:
    explicit Parser(std::string s)
        : m_s(std::move(s)) {}

    /// The whole text as `nat`; its slots in m_out.
    bool parseAll() {
        const auto end = nat(0);
        return end && *end == m_s.size();
    }
    std::vector<Slot> m_out;

private:
    using Pos = std::optional<std::size_t>;
    std::string m_s;
    std::smatch m_m; ///< the last rex() match

    Pos rex(std::size_t p, const std::regex& re) {
        if (p > m_s.size() ||
            !std::regex_search(m_s.cbegin() + static_cast<std::ptrdiff_t>(p), m_s.cend(), m_m, re,
                               std::regex_constants::match_continuous))
            return std::nullopt;
        return p + static_cast<std::size_t>(m_m.length(0));
    }
    std::string matched(int group = 0) const { return m_m[group].str(); }

    /// One of `alts` in order, the slots of a failed try dropped.
    template <class... F> Pos alt(std::size_t p, F... alts) {
        Pos r;
        const std::size_t mark = m_out.size();
        ((r ? void() : (r = (this->*alts)(p), r ? void() : m_out.resize(mark))), ...);
        return r;
    }
    /// elt (sep elt)*: a separator without an element after it is not taken.
    template <class E, class S> Pos jseq(std::size_t p, E elt, S sep) {
        Pos r = elt(p);
        while (r) {
            const std::size_t mark = m_out.size();
            const Pos q = sep(*r);
            const Pos e = q ? elt(*q) : Pos();
            if (!e) {
                m_out.resize(mark);
                break;
            }
            r = e;
        }
        return r;
    }
    template <class E> Pos jseqR(std::size_t p, E elt, const std::regex& sep) {
        return jseq(p, elt, [&](std::size_t q) { return rex(q, sep); });
    }

    // ---- separators -------------------------------------------------------
    inline static const std::regex kSep = rc("([ \\t]+|[ \\t]*,[ \\t]*)");
    inline static const std::regex kAndOr = ri("[ \\t]*(and|or)[ \\t]+");
    inline static const std::regex kAndOrComma = ri("[ \\t]*(,[ \\t]*)?((and|or)[ \\t]+|,[ \\t]*)");
    inline static const std::regex kAnd = ri("[ \\t]*and[ \\t]+");
    inline static const std::regex kTo = ri("[ \\t]*to[ \\t]+");
    inline static const std::regex kToOrDash = ri("[ \\t]*-[ \\t]*|[ \\t]+(to|through)[ \\t]+");
    inline static const std::regex kThe = ri("[ \\t]*the[ \\t]+");

    Pos nat(std::size_t p) {
        return jseqR(
            p, [this](std::size_t q) { return natElt(q); }, kSep);
    }
    Pos natElt(std::size_t p) {
        return alt(p, &Parser::every, &Parser::from, &Parser::at, &Parser::tzone, &Parser::on);
    }

    // ---- every ------------------------------------------------------------
    Pos every(std::size_t p) {
        static const std::regex kEvery = ri("[ \\t]*every[ \\t]+");
        const Pos q = rex(p, kEvery);
        if (!q)
            return q;
        const std::size_t mark = m_out.size();
        std::size_t firstSlots = 0;
        bool first = true;
        const Pos r = jseqR(
            *q,
            [&](std::size_t x) {
                const std::size_t before = m_out.size();
                const Pos e = everyObject(x);
                if (e && first) {
                    firstSlots = m_out.size() - before;
                    first = false;
                }
                return e;
            },
            kAndOr);
        // Fugit's rewrite_every keeps the first element it finds only:
        // "every 1st and 15th of the month" is the 1st.
        if (r)
            m_out.resize(mark + firstSlots);
        return r;
    }
    Pos everyObject(std::size_t p) {
        return alt(p, &Parser::everyWeekday, &Parser::everyOfTheMonth, &Parser::everyInterval,
                   &Parser::everyNamed, &Parser::everySingleInterval);
    }
    Pos everyWeekday(std::size_t p) {
        return jseqR(
            p, [this](std::size_t q) { return weekdayRange(q); }, kAndOr);
    }
    Pos everyOfTheMonth(std::size_t p) {
        static const std::regex kOtm = rc("[ \\t]+of the month");
        const std::size_t mark = m_out.size();
        Pos q = omonthdays(p);
        q = q ? rex(*q, kOtm) : q;
        if (!q)
            m_out.resize(mark);
        else
            m_out.resize(mark + 1); // the first ordinal only, as above
        return q;
    }
    Pos everyInterval(std::size_t p) {
        static const std::regex kCount = rc("\\d+");
        static const std::regex kInterval =
            rc("[ \\t]*(seconds?|minutes?|hours?|days?|months?|sec|min|s|m|h|d|M)");
        static const std::regex kStarting = ri("[ \\t]*(starting[ \\t]+at|from)[ \\t]+");
        static const std::regex kUnit = ri("(second|minute|hour|day|month)s?[ \\t]+");
        std::string count = "1";
        Pos q = rex(p, kCount);
        if (q)
            count = matched();
        else
            q = p;
        q = rex(*q, kInterval);
        if (!q)
            return q;
        std::string unit = matched(1).substr(0, 3);
        std::optional<std::string> offset;
        if (Pos o = rex(*q, kStarting); o && (o = rex(*o, kUnit)) && (o = rex(*o, kCount))) {
            offset = matched();
            q = o;
        }
        const char u = unit == "M" || unit == "mon" ? 'M' : static_cast<char>(unit[0]);
        const std::string cc = offset ? *offset + "/" + count : count == "1" ? "*" : "*/" + count;
        switch (u) {
        case 'M':
            m_out.push_back(slot("month", Datum::one(sv(cc))));
            break;
        case 'd':
            m_out.push_back(slot("monthday", Datum::one(sv(cc)), {}, kTrue));
            break;
        case 'h':
            m_out.push_back(slot("hm", Datum::one(sv(cc)), Datum::one(iv(0)), 1));
            break;
        case 'm':
            m_out.push_back(slot("hm", Datum::one(sv("*")), Datum::one(sv(cc)), kNone, 1));
            break;
        case 's':
            m_out.push_back(slot("second", Datum::one(sv(cc))));
            break;
        default:
            break;
        }
        return q;
    }
    Pos everyNamed(std::size_t p) {
        static const std::regex kWeekday = ri("weekday");
        const Pos q = rex(p, kWeekday);
        if (q)
            m_out.push_back(slot("weekday", Datum::one(sv("1-5")), {}, kTrue));
        return q;
    }
    Pos everySingleInterval(std::size_t p) {
        static const std::regex kWeekYear = rc("(1[ \\t]+)?(week|year)");
        const Pos q = rex(p, kWeekYear);
        if (!q)
            return q;
        if (matched(2) == "year") {
            m_out.push_back(slot("month", Datum::one(iv(1)), {}, kTrue));
            m_out.push_back(slot("monthday", Datum::one(iv(1)), {}, kTrue));
        } else
            m_out.push_back(slot("weekday", Datum::one(iv(0)), {}, kTrue));
        return q;
    }

    // ---- weekdays and month days -------------------------------------------
    Pos weekday(std::size_t p, int& wd) {
        static const std::regex kDay =
            ri("(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tue|wed|thu|"
               "fri|sat)(?=($|[-, \\t]))");
        const Pos q = rex(p, kDay);
        if (q) {
            static const std::string kNames = "sunmontuewedthufrisat";
            std::string d = lowered(matched(1).substr(0, 3));
            wd = static_cast<int>(kNames.find(d) / 3);
        }
        return q;
    }
    Pos weekdayRange(std::size_t p) { return alt(p, &Parser::toWeekday, &Parser::weekdays); }
    Pos toWeekday(std::size_t p) {
        int a = 0, z = 0;
        Pos q = weekday(p, a);
        q = q ? rex(*q, kToOrDash) : q;
        q = q ? weekday(*q, z) : q;
        if (q)
            m_out.push_back(
                slot("weekday", Datum::one(sv(std::to_string(a) + "-" + std::to_string(z)))));
        return q;
    }
    Pos weekdays(std::size_t p) {
        std::vector<Val> days;
        const Pos q = jseqR(
            p,
            [&](std::size_t x) {
                int d = 0;
                const Pos r = weekday(x, d);
                if (r)
                    days.push_back(iv(d));
                return r;
            },
            kAndOrComma);
        if (q)
            m_out.push_back(slot("weekday", Datum::many(days)));
        return q;
    }
    Pos omonthday(std::size_t p, Val& v) {
        static const std::regex kOrd = [] {
            std::vector<std::string> keys;
            for (const auto& [k, val] : ordinals())
                keys.push_back(k);
            return ri(alternation(keys));
        }();
        const Pos q = rex(p, kOrd);
        if (q) {
            std::string k = lowered(matched());
            for (const auto& [key, val] : ordinals())
                if (key == k)
                    v = val;
        }
        return q;
    }
    /// Ordinals joined by "and", "or" or commas, a monthday slot each.
    Pos omonthdays(std::size_t p) {
        return jseqR(
            p,
            [&](std::size_t x) {
                Val v;
                const Pos r = omonthday(x, v);
                if (r)
                    m_out.push_back(slot("monthday", Datum::one(v)));
                return r;
            },
            kAndOrComma);
    }

    // ---- from ... to ... ----------------------------------------------------
    Pos from(std::size_t p) {
        static const std::regex kFrom = ri("[ \\t]*from[ \\t]+");
        const Pos q = rex(p, kFrom);
        return jseqR(
            q ? *q : p,
            [this](std::size_t x) {
                return alt(x, &Parser::toWeekday, &Parser::toOmonthday, &Parser::toHour);
            },
            kAndOr);
    }
    Pos toOmonthday(std::size_t p) {
        Val a, z;
        Pos q = rex(p, kThe);
        q = omonthday(q ? *q : p, a);
        q = q ? rex(*q, kTo) : q;
        if (q)
            if (const Pos t = rex(*q, kThe))
                q = t;
        q = q ? omonthday(*q, z) : q;
        if (q)
            m_out.push_back(slot("monthday", Datum::one(sv(a.text() + "-" + z.text()))));
        return q;
    }
    Pos toHour(std::size_t p) {
        const std::size_t mark = m_out.size();
        Pos q = atObject(p);
        q = q ? rex(*q, kTo) : q;
        q = q ? atObject(*q) : q;
        if (!q || m_out.size() < mark + 2) {
            m_out.resize(mark);
            return std::nullopt;
        }
        const Slot h0 = m_out[mark], h1 = m_out[m_out.size() - 1];
        m_out.resize(mark);
        Slot s = slot("hm",
                      Datum::one(sv((h0.d0.nil ? "" : h0.d0.items[0].text()) + "-" +
                                    (h1.d0.nil ? "" : h1.d0.items[0].text()))),
                      Datum::one(iv(0)), kNone, 0);
        s.diverges = h0.d1.values() != h1.d1.values();
        m_out.push_back(s);
        return q;
    }

    // ---- at -----------------------------------------------------------------
    Pos at(std::size_t p) {
        static const std::regex kAt = ri("[ \\t]*at[ \\t]+");
        const Pos q = rex(p, kAt);
        return jseqR(
            q ? *q : p, [this](std::size_t x) { return atObject(x); }, kAndOrComma);
    }
    Pos atObject(std::size_t p) {
        return alt(p, &Parser::namedHour, &Parser::digitalHour, &Parser::simpleHour,
                   &Parser::atPoint);
    }
    /// am/pm, noon, midday, midnight after an hour ("" when none).
    std::string ampm(Pos& q) {
        static const std::regex kAmPm = rc("[ \\t]*(am|AM|pm|PM|[Nn]oon|[Mm]idday|[Mm]idnight)");
        if (const Pos r = rex(*q, kAmPm)) {
            q = r;
            std::string s = lowered(matched(1));
            return s;
        }
        return {};
    }
    /// The 12-hour clock as Fugit reads it (adjust_h).
    static int adjust(int h, const std::string& ap) {
        if (ap == "midnight" && h == 12)
            return 24;
        if (ap == "pm" && h < 12)
            return h + 12;
        if (ap == "am" && h == 12)
            return 0;
        return h;
    }
    Pos namedHour(std::size_t p) {
        static const std::vector<std::string> hours = [] {
            std::vector<std::string> h(sixties().begin(), sixties().begin() + 13);
            h.insert(h.end(), {"midnight", "oh", "noon"});
            return h;
        }();
        static const std::regex kH = ri(alternation(hours));
        static const std::vector<std::string> minutes = [] {
            std::vector<std::string> m = sixties();
            m.insert(m.end(), {"o'clock", "hundred"});
            return m;
        }();
        static const std::regex kM = ri(alternation(minutes));
        static const std::regex kDark = ri("[ \\t]*dark");
        static const std::regex kSpace = rc("[ \\t]+");
        Pos q = rex(p, kH);
        if (!q)
            return q;
        const std::string hw = lowered(matched());
        int h = 0;
        if (hw == "midnight" || hw == "oh")
            h = 0;
        else if (hw == "noon")
            h = 12;
        else
            h = static_cast<int>(std::find(hours.begin(), hours.end(), hw) - hours.begin());
        if (const Pos d = rex(*q, kDark))
            q = d;
        int m = 0;
        if (Pos sp = rex(*q, kSpace); sp && (sp = rex(*sp, kM))) {
            const std::string mw = lowered(matched());
            const auto it = std::find(minutes.begin(), minutes.end(), mw);
            m = it - minutes.begin() < 60 ? static_cast<int>(it - minutes.begin()) : 0;
            q = sp;
        }
        const std::string ap = ampm(q);
        m_out.push_back(slot("hm", Datum::one(iv(adjust(h, ap))), Datum::one(iv(m))));
        return q;
    }
    Pos digitalHour(std::size_t p) {
        static const std::regex kHM = ri("(2[0-4]|[0-1]?[0-9]):([0-5][0-9])");
        Pos q = rex(p, kHM);
        if (!q)
            return q;
        const int h = std::stoi(matched(1)), m = std::stoi(matched(2));
        const std::string ap = ampm(q);
        m_out.push_back(slot("hm", Datum::one(iv(adjust(h, ap))), Datum::one(iv(m))));
        return q;
    }
    Pos simpleHour(std::size_t p) {
        static const std::regex kH = [] {
            std::string alts;
            for (int i = 24; i >= 0; --i)
                alts += (alts.empty() ? "" : "|") + std::to_string(i);
            return rc(alts);
        }();
        Pos q = rex(p, kH);
        if (!q)
            return q;
        const int h = std::stoi(matched());
        const std::string ap = ampm(q);
        m_out.push_back(slot("hm", Datum::one(iv(adjust(h, ap))), Datum::one(iv(0))));
        return q;
    }
    Pos atPoint(std::size_t p) {
        return jseqR(
            p, [this](std::size_t x) { return atP(x); }, kAndOr);
    }
    Pos atP(std::size_t p) {
        static const std::regex kPoint = ri("(minutes?|mins?|seconds?|secs?|hours?|hou|h)[ \\t]+");
        static const std::regex kCount = rc("\\d+");
        Pos q = rex(p, kPoint);
        if (!q)
            return q;
        const char pt = static_cast<char>(std::tolower(static_cast<unsigned char>(matched(1)[0])));
        std::vector<Val> pts;
        q = jseq(
            *q,
            [&](std::size_t x) {
                const Pos r = rex(x, kCount);
                if (r)
                    pts.push_back(iv(std::stoi(matched())));
                return r;
            },
            [&](std::size_t x) { return rex(x, kAndOrComma); });
        if (!q)
            return q;
        if (pt == 'm')
            m_out.push_back(slot("hm", Datum::one(sv("*")), Datum::many(pts), kNone, 1));
        else if (pt == 's')
            m_out.push_back(slot("second", Datum::many(pts)));
        else
            m_out.push_back(slot(std::string(1, pt), Datum::many(pts))); // unused, as in Fugit
        return q;
    }

    // ---- zone ---------------------------------------------------------------
    Pos tzone(std::size_t p) {
        static const std::regex kInOn = ri("(in|on)[ \\t]+");
        static const std::regex kTz =
            rc("[A-Z][a-zA-Z0-9+\\-]+(/[A-Z][a-zA-Z0-9+\\-_]+){0,2}|Z|UTC|[-+]([01][0-9]|2[0-4])"
               "(:?(00|15|30|45))?");
        const Pos i = rex(p, kInOn);
        const Pos q = rex(i ? *i : p, kTz);
        if (q)
            m_out.push_back(slot("tz", Datum::one(sv(matched()))));
        return q;
    }

    // ---- on -----------------------------------------------------------------
    Pos on(std::size_t p) {
        static const std::regex kOn = ri("[ \\t]*on[ \\t]+");
        const Pos q = rex(p, kOn);
        if (!q)
            return q;
        return jseqR(
            *q,
            [this](std::size_t x) {
                return alt(x, &Parser::onDays, &Parser::weekdays, &Parser::onMinutes,
                           &Parser::onThes, &Parser::onThex);
            },
            kAnd);
    }
    Pos onDays(std::size_t p) {
        static const std::regex kDays = ri("[ \\t]*days?[ \\t]+");
        static const std::regex kDay = rc("3[0-1]|[0-2]?[0-9]");
        const Pos q = rex(p, kDays);
        if (!q)
            return q;
        return jseqR(
            *q,
            [&](std::size_t x) {
                const Pos r = rex(x, kDay);
                if (r)
                    m_out.push_back(slot("monthday", Datum::one(iv(std::stoi(matched())))));
                return r;
            },
            kAndOrComma);
    }
    Pos onMinutes(std::size_t p) {
        static const std::regex kMinute = ri("[ \\t]*minute[ \\t]+");
        static const std::regex kDmin = rc("[0-5]?[0-9]");
        Pos q = rex(p, kMinute);
        q = q ? rex(*q, kDmin) : q;
        if (!q)
            return q;
        std::string mins = matched();
        for (;;) {
            Pos r = rex(*q, kAndOrComma);
            if (!r)
                break;
            if (const Pos mm = rex(*r, kMinute))
                r = mm;
            r = rex(*r, kDmin);
            if (!r)
                break;
            mins += "," + matched();
            q = r;
        }
        m_out.push_back(slot("hm", Datum::one(sv("*")), Datum::one(sv(mins)), kNone, 1));
        return q;
    }
    Pos onThes(std::size_t p) {
        return jseqR(
            p,
            [this](std::size_t x) {
                const Pos t = rex(x, kThe);
                return t ? omonthdays(*t) : t;
            },
            kAndOrComma);
    }
    Pos onThex(std::size_t p) {
        static const std::regex kThex = ri("[ \\t]*the[ \\t]+(hour|minute)[ \\t]*");
        const Pos q = rex(p, kThex);
        if (!q)
            return q;
        std::string w = lowered(matched(1));
        if (w == "hour")
            m_out.push_back(slot("hm", Datum::one(iv(0)), Datum::one(sv("*")), kNone, 0));
        else
            m_out.push_back(slot("hm", Datum::one(sv("*")), Datum::one(sv("*")), kNone, 1));
        return q;
    }
};

/// Numbers first by value, then texts in the order met; no repeats.
std::string joinField(const std::vector<Val>& v) {
    std::vector<Val> uniq;
    for (const Val& x : v)
        if (std::find(uniq.begin(), uniq.end(), x) == uniq.end())
            uniq.push_back(x);
    std::stable_sort(uniq.begin(), uniq.end(),
                     [](const Val& a, const Val& b) { return a.isInt && (!b.isInt || a.n < b.n); });
    std::string out;
    for (const Val& x : uniq)
        out += (out.empty() ? "" : ",") + x.text();
    return out;
}

} // namespace

std::optional<std::string> naturalToCron(std::string_view text, std::string* why) {
    const auto fail = [&](std::string w) -> std::optional<std::string> {
        if (why)
            *why = std::move(w);
        return std::nullopt;
    };
    std::string s(text);
    s.erase(0, s.find_first_not_of(" \t\r\n"));
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    if (s.size() > 256)
        return fail("longer than the 256 characters Fugit reads as a natural schedule");
    Parser p(s);
    if (!p.parseAll())
        return fail("not a cron line or a natural-language schedule Fugit reads");
    // SlotGroup: hour-and-minute slots kept apart, the others merged by key.
    std::vector<Slot> hms;
    std::map<std::string, Slot> slots;
    for (const Slot& x : p.m_out) {
        if (x.diverges)
            return fail("a range of hours whose minutes differ (\"8:30 to 5pm\")");
        if (x.key == "hm")
            hms.push_back(x);
        else if (const auto it = slots.find(x.key); it != slots.end())
            it->second.append(x);
        else
            slots.emplace(x.key, x);
    }
    if (slots.count("monthday") || slots.count("weekday")) {
        if (hms.empty())
            hms.push_back(slot("hm", Datum::one(iv(0)), Datum::one(iv(0))));
    } else if (slots.count("month")) {
        if (hms.empty())
            hms.push_back(slot("hm", Datum::one(iv(0)), Datum::one(iv(0))));
        slots.emplace("monthday", slot("monthday", Datum::one(iv(1))));
    }
    // determine_hms: a graded slot absorbs its neighbour, then the hours are
    // grouped by minute and the minutes by their hour set.
    std::vector<std::pair<std::vector<Val>, std::vector<Val>>> groups;
    if (hms.empty())
        groups.push_back({{sv("*")}, {sv("*")}});
    else {
        for (;;) {
            if (hms.size() < 2)
                break;
            const auto g =
                std::find_if(hms.begin(), hms.end(), [](const Slot& x) { return x.graded(); });
            if (g == hms.end())
                break;
            const std::size_t ig = static_cast<std::size_t>(g - hms.begin());
            const std::size_t io = ig == 0 ? 1 : ig - 1;
            Slot merged = hms[ig];
            merged.append(hms[io]);
            hms[ig] = merged;
            hms.erase(hms.begin() + static_cast<std::ptrdiff_t>(io));
        }
        std::vector<std::pair<Val, std::vector<Val>>> byMinute;
        for (const Slot& x : hms) {
            const std::vector<Val> hs = x.d0.nil ? std::vector<Val>{} : x.d0.items;
            for (const Val& m : x.d1.nil ? std::vector<Val>{} : x.d1.items) {
                auto it = std::find_if(byMinute.begin(), byMinute.end(),
                                       [&](const auto& e) { return e.first == m; });
                if (it == byMinute.end())
                    it = byMinute.insert(byMinute.end(), {m, {}});
                it->second.insert(it->second.end(), hs.begin(), hs.end());
            }
        }
        for (auto& [m, hours] : byMinute) {
            auto& hs = hours; // a lambda cannot capture a structured binding (C++17)
            std::stable_sort(hs.begin(), hs.end(), [](const Val& a, const Val& b) {
                return a.isInt && (!b.isInt || a.n < b.n);
            });
            auto it = std::find_if(groups.begin(), groups.end(),
                                   [&](const auto& g) { return g.first == hs; });
            if (it == groups.end())
                groups.push_back({hs, {m}});
            else
                it->second.push_back(m);
        }
    }
    if (groups.size() > 1)
        return fail("it needs more than one cron line (Solid Queue refuses it: one task per "
                    "schedule, or an explicit cron such as \"40 0,15 * * *\")");
    const auto field = [&](const char* key, const char* def) {
        const auto it = slots.find(key);
        return it == slots.end() || it->second.d0.nil ? std::vector<Val>{sv(def)}
                                                      : it->second.d0.items;
    };
    std::vector<std::vector<Val>> fields = {field("second", "0"), groups[0].second,
                                            groups[0].first,      field("monthday", "*"),
                                            field("month", "*"),  field("weekday", "*")};
    if (const auto tz = slots.find("tz"); tz != slots.end())
        fields.push_back(tz->second.d0.items);
    if (fields[0].size() == 1 && !fields[0][0].isInt && fields[0][0].s == "0")
        fields.erase(fields.begin());
    std::string out;
    for (const auto& f : fields)
        out += (out.empty() ? "" : " ") + joinField(f);
    return out;
}

} // namespace lq::core::cron
