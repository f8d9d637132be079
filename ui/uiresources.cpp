// SPDX-License-Identifier: MIT
#include "ui/uiresources.h"

#include <QAction>
#include <QIcon>

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

QAction* makeAction(QObject* parent, const char* name, const QString& text, const char* icon,
                    const QKeySequence& key) {
    auto* a = new QAction(text, parent);
    a->setObjectName(QString::fromLatin1(name));
    if (icon) {
        a->setIcon(QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(icon))));
    }
    if (!key.isEmpty()) {
        a->setShortcut(key);
    }
    return a;
}

} // namespace lq::ui
