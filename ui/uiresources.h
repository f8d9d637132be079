// SPDX-License-Identifier: MIT
#pragma once

#include <QKeySequence>
#include <QString>

class QAction;
class QObject;

namespace lq::ui {

/// Registers the icons of the static lqui library (idempotent).
void initResources();

/// A QAction named `name` (its object name: tests and settings find it by
/// it; code keeps the pointer), with the icon :/icons/<icon>.svg and a
/// shortcut when given.
QAction* makeAction(QObject* parent, const char* name, const QString& text,
                    const char* icon = nullptr, const QKeySequence& key = {});

} // namespace lq::ui
