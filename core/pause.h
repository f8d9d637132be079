// SPDX-License-Identifier: MIT
#pragma once
// Pausing a named queue as its library does, one flow for every engine: a
// file's driver on its write connection (core/actions.cpp) and a
// PostgreSQL library's own table (core/pg/pause.cpp) each say only how the
// pause is stored; the checks, the audit rows and undo's guard are here.

#include "actions.h"
#include "formats/driver.h"

#include <cstdint>
#include <string>

namespace lq::core {

/// Where a named queue's pause is stored, used inside a write transaction.
class PauseStore {
public:
    using Row = FormatDriver::PauseRow;
    virtual ~PauseStore() = default;
    /// The stored pause of `queue` as it is now.
    virtual Row read(const std::string& queue) const = 0;
    /// The library's own pause or resume (known to be the other way round);
    /// the rows changed.
    virtual std::int64_t write(const std::string& queue, bool pause, TimeNs now) const = 0;
    /// `before` written back where the stored pause is still `wrote`; 0 when
    /// it moved on.
    virtual std::int64_t restore(const std::string& queue, const Row& wrote,
                                 const Row& before) const = 0;
};

/// Pause (Action::Pause) or resume of `queue` into `r`: skipped when the
/// queue cannot take a pause or already is as asked.
void pauseQueue(const PauseStore& store, Action a, const std::string& queue, TimeNs now,
                ActionResult& r);
/// Undo of one recorded pause or resume: the stored pause back as it was,
/// while it is still what the action wrote.
void unpauseQueue(const PauseStore& store, const AppliedRow& row, ActionResult& r);

} // namespace lq::core
