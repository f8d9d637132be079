// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

namespace lq::ui {

/// Help > About: what the program is, its version and git commit, and the
/// SQLite and Qt libraries it runs on (the versions loaded at run time, which
/// a bug report needs). "Copy" puts the same facts on the clipboard as text.
class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);

    /// "LiteQueue Admin 0.1.0", then one "name: value" line each for the
    /// commit, SQLite and Qt: what the dialog shows and "Copy" copies.
    static QString versionReport();
};

} // namespace lq::ui
