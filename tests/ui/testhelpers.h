// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the GUI tests: model access that waits for the worker.
// Fixture copies and waits come from the test-support library.

#include "support/fixtures.h"
#include "support/waits.h"
#include "ui/messagemodel.h"

#include <QString>
#include <QTemporaryDir>
#include <QTest>

namespace lq::test {

/// Asks the model for a row (as a view would) and reports whether it is
/// loaded; use inside QTRY_VERIFY.
inline bool rowLoaded(ui::MessageModel* m, int row) {
    if (row < 0 || row >= m->rowCount()) {
        return false;
    }
    m->data(m->index(row, 0));
    return m->rowAt(row) != nullptr;
}

inline bool allLoaded(ui::MessageModel* m) {
    bool all = true;
    for (int r = 0; r < m->rowCount(); ++r) {
        m->data(m->index(r, 0));
        all = all && m->rowAt(r) != nullptr;
    }
    return all;
}

inline QString idAt(ui::MessageModel* m, int row) {
    return m->data(m->index(row, 0), ui::MessageModel::MessageIdRole).toString();
}

} // namespace lq::test
