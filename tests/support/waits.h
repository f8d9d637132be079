// SPDX-License-Identifier: MIT
#pragma once

// Waits and checks whose outcome the caller cannot drop. A QVERIFY inside a
// helper only returns from the helper, and a wait whose result is ignored
// passes on a timeout; so helpers that check return [[nodiscard]] bool and
// the test says QVERIFY(helper(...)).

#include <QTest>

#include <utility>

namespace lq::test {

/// Processes events until `pred` holds or `timeoutMs` passed; whether it
/// held. Use as QVERIFY(waitFor(...)) — or QTRY_VERIFY where a macro fits.
template <class Pred> [[nodiscard]] bool waitFor(Pred&& pred, int timeoutMs = 5000) {
    return QTest::qWaitFor(std::forward<Pred>(pred), timeoutMs);
}

} // namespace lq::test

/// In a helper returning bool: records a failure at this line (as QVERIFY
/// would, with the expression in the log) and returns false, so the
/// caller's QVERIFY(helper(...)) fails too.
#define LQ_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!QTest::qVerify(static_cast<bool>(cond), #cond, "", __FILE__, __LINE__))               \
            return false;                                                                          \
    } while (false)

/// LQ_CHECK with a message (a const char*), like QVERIFY2.
#define LQ_CHECK2(cond, message)                                                                   \
    do {                                                                                           \
        if (!QTest::qVerify(static_cast<bool>(cond), #cond, (message), __FILE__, __LINE__))        \
            return false;                                                                          \
    } while (false)
