// SPDX-License-Identifier: MIT
#include "ui/uiresources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be used outside any namespace.
static void initLqadminResources() {
    Q_INIT_RESOURCE(lqadmin);
}

namespace lq::ui {

void initResources() {
    static const bool done = [] {
        initLqadminResources();
        return true;
    }();
    Q_UNUSED(done);
}

} // namespace lq::ui
