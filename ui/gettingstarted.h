// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

class QTabWidget;

namespace lq::ui {

/// Help › Getting started: the statuses, claims, stuck messages, what each
/// action does and cannot do, in a few pages, with where to read more.
class GettingStartedDialog : public QDialog {
    Q_OBJECT
public:
    explicit GettingStartedDialog(QWidget* parent = nullptr);
    /// The pages, for tests: their titles and their text.
    QTabWidget* pages() const { return m_pages; }

private:
    QTabWidget* m_pages;
};

} // namespace lq::ui
