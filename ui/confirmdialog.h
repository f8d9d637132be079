// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>
#include <QString>

class QLabel;
class QRadioButton;

namespace lq::ui {

/// What a confirmation asks before a write. A row action offers its scope
/// here, per action: the selected jobs (the default whenever there is a
/// selection) or every job matching the current filter. Nothing about the
/// scope outlives one confirmation.
struct ConfirmRequest {
    QString text;      ///< the question for the selection, or the only one
    qint64 count = -1; ///< jobs it touches (-1: not about jobs)
    /// A row action: the scope is chosen here.
    bool scopeOffered = false;
    qint64 selectionCount = 0; ///< 0: nothing selected, only the filter scope
    QString filterText;        ///< the question for the filter scope
    qint64 filterCount = -1;   ///< the jobs the table shows for the filter
    /// In: the default scope (the filter only when nothing is selected);
    /// out: the scope the operator chose.
    bool wholeFilter = false;
};

/// The modal question with its scope choice. The text is plain (payloads,
/// ids and queue names come from the file); Cancel is the default button.
class ConfirmDialog : public QDialog {
    Q_OBJECT
public:
    ConfirmDialog(const ConfirmRequest& request, QWidget* parent = nullptr);

    bool wholeFilter() const;
    QRadioButton* selectionButton() const { return m_selection; }
    QRadioButton* filterButton() const { return m_filter; }
    QString text() const;

private:
    void update();

    ConfirmRequest m_request;
    QLabel* m_text = nullptr;
    QRadioButton* m_selection = nullptr;
    QRadioButton* m_filter = nullptr;
};

} // namespace lq::ui
