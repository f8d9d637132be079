// SPDX-License-Identifier: MIT
#pragma once

namespace lq::ui {

/// Registers the icons of the static lqui library (idempotent).
void initResources();

} // namespace lq::ui
