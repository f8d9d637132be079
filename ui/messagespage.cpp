// SPDX-License-Identifier: MIT
#include "ui/messagespage.h"

#include "core/jsonwhere.h"
#include "core/statemodel.h"

#include "core/backend.h"
#include "core/formats/queueformat.h"
#include "ui/busyrow.h"
#include "ui/emptystate.h"
#include "ui/messagedetailpane.h"
#include "ui/queueactionhandler.h"
#include "ui/queuedocument.h"
#include "ui/queuesettings.h"
#include "ui/rowwindowscroller.h"
#include "ui/runasync.h"
#include "ui/statusfilterbar.h"
#include "ui/textcelldelegate.h"
#include "ui/theme.h"
#include "ui/uitext.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace lq::ui {

MessagesPage::MessagesPage(QueueDocument* document, MessageModel* model,
                           QueueActionHandler* actions, QWidget* parent)
    : QWidget(parent)
    , m_doc(document)
    , m_model(model)
    , m_actions(actions) {
    createWidgets();
    connectModel();
}

MessagesPage::~MessagesPage() = default;

void MessagesPage::createWidgets() {
    auto* pageLayout = new QVBoxLayout(this);
    pageLayout->setContentsMargins(0, 4, 0, 0);
    pageLayout->setSpacing(4);

    auto* filterRow = new QHBoxLayout;
    m_filterBar = new StatusFilterBar(this);
    // The chips take the room they need, the search box the rest; they wrap
    // only when that is not there. With both stretched alike they had half
    // the row each and wrapped at 1,400 px as soon as the counts of a million
    // messages came, moving the table down and repainting it whole.
    QSizePolicy chips(QSizePolicy::Preferred, QSizePolicy::Preferred);
    chips.setHeightForWidth(true);
    m_filterBar->setSizePolicy(chips);
    filterRow->addWidget(m_filterBar);
    // The named queues inside the file (Solid Queue's queue_name, plainjob's
    // type, ...), for formats that have them.
    m_queueCombo = new QComboBox(this);
    m_queueCombo->setObjectName(QStringLiteral("queueFilter"));
    m_queueCombo->setAccessibleName(tr("Queue filter"));
    m_queueCombo->setToolTip(tr("Show the messages of one named queue; the counts follow"));
    m_queueCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    // Never narrower than its longest name: the search box gives way.
    m_queueCombo->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    m_queueCombo->setVisible(false);
    filterRow->addWidget(m_queueCombo);
    connect(m_queueCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        const QString q = i < 0 ? QString() : m_queueCombo->itemData(i).toString();
        if (q != m_queue) {
            m_queue = q;
            applyFilter();
        }
    });
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("search"));
    m_search->setPlaceholderText(tr("Search id, idempotency key, payload"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search messages"));
    m_search->setAccessibleDescription(tr("Filters the table by message id, idempotency key or "
                                          "payload (Ctrl+F)"));
    m_search->setMinimumWidth(160);
    filterRow->addWidget(m_search, 1);
    auto* stuckLabel = new QLabel(tr("Stuck after"), this);
    filterRow->addWidget(stuckLabel);
    m_stuckSpin = new QSpinBox(this);
    m_stuckSpin->setObjectName(QStringLiteral("stuckThreshold"));
    m_stuckSpin->setRange(1, 30 * 86400);
    m_stuckSpin->setValue(core::kDefaultStuckAfterSeconds);
    m_stuckSpin->setSuffix(tr(" s"));
    stuckLabel->setBuddy(m_stuckSpin);
    updateStuckThreshold();
    filterRow->addWidget(m_stuckSpin);
    pageLayout->addLayout(filterRow);
    createWhereRow(pageLayout);

    // What the dashboard narrowed the table to (a time range, a histogram
    // bar), with a way back to every message.
    m_narrowRow = new QWidget(this);
    auto* narrowLayout = new QHBoxLayout(m_narrowRow);
    narrowLayout->setContentsMargins(0, 0, 0, 0);
    m_narrowLabel = new QLabel(m_narrowRow);
    m_narrowLabel->setTextFormat(Qt::PlainText);
    m_narrowLabel->setObjectName(QStringLiteral("narrowLabel"));
    auto* clearNarrow = new QToolButton(m_narrowRow);
    clearNarrow->setText(tr("Show all messages"));
    clearNarrow->setObjectName(QStringLiteral("clearNarrow"));
    narrowLayout->addWidget(m_narrowLabel);
    narrowLayout->addWidget(clearNarrow);
    narrowLayout->addStretch(1);
    m_narrowRow->setVisible(false);
    pageLayout->addWidget(m_narrowRow);
    m_busyRow = new BusyRow(this);
    pageLayout->addWidget(m_busyRow);
    connect(m_busyRow, &BusyRow::cancelRequested, this, [this] {
        // The read of the superseded filter stops (MessageLoader::requestReset).
        const QSignalBlocker b1(m_search);
        const QSignalBlocker b2(m_where);
        m_search->clear();
        m_where->clear();
        m_searchDebounce.stop();
        applyFilter();
    });
    connect(clearNarrow, &QToolButton::clicked, this, [this] {
        m_rangeFrom.reset();
        m_rangeTo.reset();
        m_band.reset();
        applyFilter();
    });

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("messageTable"));
    m_view->setModel(m_model);
    m_view->setItemDelegate(new TextCellDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setSortIndicator(MessageModel::MessageId, Qt::AscendingOrder);
    m_view->horizontalHeader()->setSortIndicatorShown(true);
    m_view->setSortingEnabled(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setIconSize(QSize(14, 14));
    const QFontMetrics fm(m_view->font());
    const int digit = fm.horizontalAdvance(QLatin1Char('0'));
    const int timeWidth = fm.horizontalAdvance(QStringLiteral("03-14 09:00:09Z")) + 16;
    QHeaderView* hh = m_view->horizontalHeader();
    hh->resizeSection(MessageModel::MessageId, digit * 37 + 16);
    hh->resizeSection(MessageModel::Status, fm.horizontalAdvance(QStringLiteral("LOCKED")) + 56);
    hh->resizeSection(MessageModel::Claim, digit * 6 + 12);
    hh->resizeSection(MessageModel::IdempotencyKey, digit * 11);
    hh->resizeSection(MessageModel::Payload, digit * 28);
    hh->resizeSection(MessageModel::Enqueued, timeWidth);
    hh->resizeSection(MessageModel::Claimed, timeWidth);
    hh->resizeSection(MessageModel::Finished, timeWidth);
    hh->resizeSection(MessageModel::Wait, digit * 9);
    hh->resizeSection(MessageModel::Processing, fm.horizontalAdvance(tr("Processing")) + 24);
    hh->resizeSection(MessageModel::Age, digit * 9);
    // The columns of the fields a format declares, next to their kin.
    hh->resizeSection(MessageModel::Queue, digit * 12);
    hh->resizeSection(MessageModel::Job, digit * 22);
    hh->resizeSection(MessageModel::Priority, fm.horizontalAdvance(tr("Priority")) + 24);
    hh->resizeSection(MessageModel::Attempts, fm.horizontalAdvance(tr("Executions")) + 24);
    hh->resizeSection(MessageModel::Error, digit * 30);
    hh->resizeSection(MessageModel::ScheduledAt, timeWidth);
    hh->resizeSection(MessageModel::LeaseExpiry, timeWidth);
    const std::pair<int, int> placeAfter[] = {
        {MessageModel::Queue, MessageModel::Status},
        {MessageModel::Job, MessageModel::Queue},
        {MessageModel::Priority, MessageModel::Job},
        {MessageModel::Attempts, MessageModel::Priority},
        {MessageModel::Error, MessageModel::Payload},
        {MessageModel::ScheduledAt, MessageModel::Enqueued},
        {MessageModel::LeaseExpiry, MessageModel::Claimed},
    };
    for (const auto& [column, after] : placeAfter) {
        hh->moveSection(hh->visualIndex(column), hh->visualIndex(after) + 1);
    }
    hh->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(hh, &QWidget::customContextMenuRequested, this, &MessagesPage::showHeaderMenu);
    hh->setStretchLastSection(true);
    // The table and, for an ordering longer than the model's window, the
    // scroll bar over every row (RowWindowScroller).
    auto* tableRow = new QHBoxLayout;
    tableRow->setContentsMargins(0, 0, 0, 0);
    tableRow->setSpacing(0);
    m_scroller = new RowWindowScroller(m_view, m_model, this);
    tableRow->addWidget(m_view, 1);
    tableRow->addWidget(m_scroller->bar());
    pageLayout->addLayout(tableRow, 1);

    m_detail = new MessageDetailPane(this);
    m_detail->setObjectName(QStringLiteral("detailPane"));

    m_searchDebounce.setSingleShot(true);
    m_searchDebounce.setInterval(250);
    connect(&m_searchDebounce, &QTimer::timeout, this, &MessagesPage::applyFilter);
    connect(m_search, &QLineEdit::textChanged, this, [this] { m_searchDebounce.start(); });
    connect(m_where, &QLineEdit::textChanged, this, [this] { m_searchDebounce.start(); });
    connect(m_filterBar, &StatusFilterBar::filterChanged, this, &MessagesPage::applyFilter);
    connect(m_stuckSpin, &QSpinBox::valueChanged, this, [this](int s) {
        m_model->setStuckThresholdSeconds(s);
        m_detail->setStuckThresholdSeconds(s);
        emit stuckThresholdChanged(s);
        if (m_filterBar->choice() == StatusFilterBar::Stuck) {
            applyFilter();
        }
    });
    connect(hh, &QHeaderView::sortIndicatorChanged, this, [this, hh](int col, Qt::SortOrder o) {
        if (!MessageModel::isSortable(col)) {
            // Payload and key have no order in the file: keep the previous sort.
            QSignalBlocker block(hh);
            hh->setSortIndicator(m_sortColumn, m_sortOrder);
            return;
        }
        m_sortColumn = col;
        m_sortOrder = o;
        rememberView();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MessagesPage::onCurrentChanged);
    // A mouse press makes the row current first and selects it after: the
    // pane follows the selection too, or a click shows nothing until the
    // next poll.
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MessagesPage::onCurrentChanged);
    connect(m_view, &QWidget::customContextMenuRequested, this, &MessagesPage::showContextMenu);
    m_actions->setSelectionModel(m_view->selectionModel());
}

void MessagesPage::connectModel() {
    connect(m_model, &MessageModel::countsChanged, m_filterBar, &StatusFilterBar::setCounts);
    m_empty = new EmptyState(m_view);
    connect(m_doc, &QueueDocument::openFailed, this, [this](const QString& path, const QString& e) {
        m_openError =
            tr("Cannot open %1:\n%2\n\nFile \u203a Open\u2026 (Ctrl+O) picks another file.")
                .arg(QFileInfo(path).fileName(), e);
        updateEmptyState();
    });
    connect(m_doc, &QueueDocument::opened, this, [this] {
        m_openError.clear();
        updateEmptyState();
    });
    connect(m_doc, &QueueDocument::closed, this, &MessagesPage::updateEmptyState);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MessagesPage::updateEmptyState);
    connect(m_model, &QAbstractItemModel::layoutChanged, this, &MessagesPage::updateEmptyState);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &MessagesPage::updateEmptyState);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &MessagesPage::updateEmptyState);
    connect(m_model, &MessageModel::refreshed, this, &MessagesPage::updateEmptyState);
    updateEmptyState();
    // Ids are as wide as the format makes them (a number, a UUID): a file
    // seen for the first time sizes the column to its first rows.
    connect(m_model, &MessageModel::firstRowsShown, this, &MessagesPage::fitIdColumn);
    // The first page comes as a reset (its own query), or as loaded blocks
    // when the ordering came first.
    connect(m_model, &MessageModel::firstRowsShown, this, &MessagesPage::checkFirstPage);
    connect(m_model, &MessageModel::orderingReset, this, &MessagesPage::checkFirstPage);
    connect(m_model, &MessageModel::orderingReset, m_busyRow, &BusyRow::done);
    connect(m_model, &MessageModel::errorOccurred, m_busyRow, &BusyRow::done);
    connect(m_model, &MessageModel::orderingReset, this, &MessagesPage::fitIdColumn);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            &MessagesPage::fitIdColumn); // blocks loaded later
    // A queue name can appear or go with the data.
    connect(m_model, &MessageModel::dataVersionChanged, this, &MessagesPage::fetchQueueNames);
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this,
            &MessagesPage::rememberCurrent);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MessagesPage::restoreCurrent);
    // A first page that turns out to be the whole ordering arrives without
    // a reset: find the message asked for once the ordering is there.
    connect(m_model, &MessageModel::orderingReset, this, [this] {
        if (!m_restoreId.isEmpty() && m_model->hasOrdering()) {
            m_model->locate(m_restoreId);
        }
        if (m_endPending && m_model->hasOrdering()) {
            m_endPending = false;
            const int last = m_model->rowOfPosition(m_model->orderedRows() - 1);
            if (last >= 0) {
                m_view->selectionModel()->setCurrentIndex(
                    m_model->index(last, m_view->currentIndex().isValid()
                                             ? m_view->currentIndex().column()
                                             : int(MessageModel::MessageId)),
                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
                m_view->scrollToBottom();
            }
        }
    });
    m_view->installEventFilter(this);
    m_view->viewport()->installEventFilter(this);
    // The message the pane keeps, marked as gone from this filter, may come
    // back (an Undo, another worker): chosen again, the pane shows it fresh.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        const QString shown = m_detail->messageId();
        const QModelIndex cur = m_view->currentIndex();
        if (shown.isEmpty() || m_detail->notShownNote().isEmpty() ||
            (cur.isValid() && m_view->selectionModel()->isRowSelected(cur.row(), {}))) {
            return;
        }
        m_restoreId = shown;
        m_model->locate(shown);
    });
    connect(m_model, &MessageModel::located, this, [this](const QString& id, int row) {
        if (id != m_restoreId) {
            return;
        }
        const bool keepTop = std::exchange(m_keepTop, false);
        if (row < 0) {
            if (keepTop) {
                m_restoreId.clear(); // the new filter left it out: the pane says so
                onCurrentChanged();
            }
            return;
        }
        m_restoreId.clear();
        const QModelIndex idx = m_model->index(row, MessageModel::MessageId);
        m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        if (!keepTop) {
            m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
        }
    });
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& tl, const QModelIndex& br) {
                checkFirstPage();
                const QModelIndex cur = m_view->currentIndex();
                if (cur.isValid() && cur.row() >= tl.row() && cur.row() <= br.row()) {
                    onCurrentChanged();
                }
            });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &MessagesPage::onCurrentChanged);
}

void MessagesPage::documentOpened(bool samePath) {
    if (!samePath) {
        m_restoreId = m_pendingSelect;
        m_pendingSelect.clear();
    } else {
        rememberCurrent();
    }
    if (!samePath) {
        m_restoringView = true;
        m_fitIdColumn = true; // unless this file's own widths come back
        m_filterBar->setChoice(StatusFilterBar::All);
    }
    // The format's chips first: the file's view may check some of them.
    m_filterBar->setStates(m_doc->format().states());
    // Each chip carries the state model's name; the library's own word for a
    // state is the chip's caption (goqite's dead letters).
    for (const core::State s : m_doc->format().states()) {
        const auto c = StatusFilterBar::choiceOf(s);
        if (c == StatusFilterBar::All) {
            continue;
        }
        const std::string word = m_doc->format().stateWord(s);
        m_filterBar->setStateName(c, fromStd(core::partitionName(m_doc->format(), s)),
                                  word.empty() ? QString() : stateTitle(word));
    }
    m_filterBar->setStuckRule(fromStd(m_doc->format().ownStuckRule()));
    updateStuckThreshold();
    m_filterBar->setExtraStates(m_doc->format().extraStates(),
                                QString::fromLatin1(m_doc->format().id()));
    if (!samePath) {
        restoreView();
        m_restoringView = false;
        touchFileSettings(m_doc->path());
    }
    m_queueCombo->setVisible(m_doc->format().namedQueues());
    if (!samePath) {
        m_queueNames.clear();
    }
    fillQueueCombo(m_queueNames);
    applyColumnSet();
    m_detail->setBackend(m_doc->backend());
    if (!samePath) {
        m_rangeFrom.reset();
        m_rangeTo.reset();
        m_band.reset();
    }
    applyFilter(); // before setBackend: one ordering job, not two
    if (samePath || !m_restoreId.isEmpty()) {
        // A reopen keeps the place and the selection; a message asked for
        // before the file was open (lqadmin --select) is selected.
        m_topOnNextReset = false;
    }
    m_model->setBackend(m_doc->backend(), m_doc->path());
    m_filterBar->setCountsPending(); // not "All 0" beside the first rows
    m_firstPagePending = true;
    fetchQueueNames();
}

void MessagesPage::fetchQueueNames() {
    if (!m_doc->isOpen() || !m_doc->format().namedQueues() || m_fetchingNames) {
        return;
    }
    auto backend = m_doc->backend();
    if (!backend) {
        return;
    }
    m_fetchingNames = true;
    auto work = [backend]() -> std::optional<QStringList> {
        try {
            QStringList names;
            for (const std::string& n : backend->queueNames()) {
                names << fromStd(n);
            }
            return names;
        } catch (const std::exception&) {
            return std::nullopt; // the loader reports the file's errors
        }
    };
    runAsync(this, std::move(work), [this, backend](const std::optional<QStringList>& names) {
        m_fetchingNames = false;
        if (!names || backend != m_doc->backend()) {
            return; // unreadable (the list stays), or another file by now
        }
        m_queueNames = *names;
        fillQueueCombo(*names);
    });
}

void MessagesPage::setQueueFilter(const QString& name) {
    if (name == m_queue)
        return;
    m_queue = name;
    {
        QSignalBlocker block(m_queueCombo);
        if (!name.isEmpty() && m_queueCombo->findData(name) < 0)
            m_queueCombo->addItem(name, name); // before the names arrive
        m_queueCombo->setCurrentIndex(std::max(0, m_queueCombo->findData(name)));
    }
    applyFilter();
}

void MessagesPage::fillQueueCombo(const QStringList& names) {
    QSignalBlocker block(m_queueCombo);
    m_queueCombo->clear();
    m_queueCombo->addItem(tr("All queues"), QString());
    QStringList shown = names;
    if (!m_queue.isEmpty() && !shown.contains(m_queue)) {
        shown << m_queue; // chosen before; none left now (the table says so)
    }
    for (const QString& n : std::as_const(shown)) {
        m_queueCombo->addItem(n, n);
    }
    m_queueCombo->setCurrentIndex(std::max(0, m_queueCombo->findData(m_queue)));
}

void MessagesPage::documentClosed() {
    m_model->setBackend(nullptr);
    m_detail->setBackend(nullptr);
}

void MessagesPage::selectMessage(const QString& messageId) {
    if (!m_doc->isOpen() || m_doc->isBusy()) {
        m_pendingSelect = messageId;
        return;
    }
    m_restoreId = messageId;
    m_keepTop = false;
    if (m_model->hasOrdering()) {
        m_model->locate(messageId);
    }
}

void MessagesPage::setUtc(bool utc) {
    m_utc = utc;
    m_model->setUtc(utc);
    m_detail->setUtc(utc);
}

QStringList MessagesPage::selectedMessageIds() const {
    QStringList ids;
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex& i : rows) {
        if (const MessageRow* r = m_model->rowAt(i.row())) {
            ids << fromStd(r->msg.messageId);
        }
    }
    return ids;
}

QString MessagesPage::rowsText() const {
    const QLocale locale;
    const qint64 shown = m_model->orderedRows();
    const core::Counts counts = m_model->counts();
    if (shown == counts.stored) {
        return tr("%1 shown").arg(locale.toString(shown));
    }
    return tr("%1 of %2 shown")
        .arg(locale.toString(shown), countText(counts.stored, counts.estimated));
}

int MessagesPage::showPosition(int pos, QAbstractItemView::ScrollHint hint) {
    return m_scroller->showPosition(pos, hint);
}

void MessagesPage::focusSearch() {
    m_search->setFocus();
    m_search->selectAll();
}

void MessagesPage::narrowToRange(std::optional<qint64> from, std::optional<qint64> to) {
    // A new range replaces an earlier narrowing instead of stacking on a
    // histogram bar unseen.
    m_band.reset();
    m_rangeFrom = from;
    m_rangeTo = to;
    applyFilter();
}

void MessagesPage::narrowToBand(const core::Filter& band) {
    // The bar's messages, in the table: its band and the range.
    m_band = band;
    m_rangeFrom = band.inTimeFrom;
    m_rangeTo = band.inTimeTo;
    m_filterBar->setChoice(StatusFilterBar::All);
    applyFilter();
}

void MessagesPage::applyFilter() {
    core::Filter f;
    m_filterBar->applyTo(f);
    f.inTimeFrom = m_rangeFrom;
    f.inTimeTo = m_rangeTo;
    if (m_band) {
        f.metric = m_band->metric;
        f.metricLo = m_band->metricLo;
        f.metricHi = m_band->metricHi;
    }
    updateNarrowRow();
    f.search = toStd(m_search->text());
    f.where = whereCondition();
    if (!f.where.empty() || !f.search.empty())
        m_busyRow->started(f.where.empty()
                               ? tr("Searching every job…")
                               : tr("Filtering every job by %1…").arg(fromStd(f.where)));
    else
        m_busyRow->done();
    if (m_doc->isOpen() && m_doc->format().namedQueues()) {
        f.queue = toStd(m_queue);
    }
    f.stuckAfterNs = core::TimeNs(m_stuckSpin->value()) * core::kNsPerSecond;
    m_model->setStuckThresholdSeconds(m_stuckSpin->value());
    // A new filter (a search, a status, a drill-down) opens at the top.
    m_topOnNextReset = true;
    rememberView();
    m_model->setFilter(f);
}

void MessagesPage::updateNarrowRow() {
    QStringList parts;
    const auto when = [utc = m_utc](qint64 t) { return formatInstant(t, utc, false); };
    if (m_rangeFrom || m_rangeTo) {
        parts << tr("enqueued %1 – %2")
                     .arg(m_rangeFrom ? when(*m_rangeFrom) : tr("start"),
                          m_rangeTo ? when(*m_rangeTo) : tr("now"));
    }
    if (m_band) {
        static const char* names[] = {"", "wait", "processing", "total", "time to failure"};
        const auto metric = static_cast<int>(m_band->metric);
        const QString lo = m_band->metricLo <= 0 ? tr("0") : humanDuration(m_band->metricLo);
        const QString hi = m_band->metricHi == std::numeric_limits<qint64>::max()
                               ? tr("∞")
                               : humanDuration(m_band->metricHi);
        parts << tr("%1 from %2 to %3")
                     .arg(QString::fromLatin1(names[std::clamp(metric, 0, 4)]), lo, hi);
    }
    m_narrowLabel->setText(
        tr("Narrowed by the dashboard: %1").arg(parts.join(QStringLiteral("; "))));
    m_narrowRow->setVisible(!parts.isEmpty());
}

bool MessagesPage::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::KeyPress && watched == m_view) {
        const auto* key = static_cast<QKeyEvent*>(event);
        // The rows shown are the first page while the ordering is computed
        // (a million Solid Queue jobs: about a second): Ctrl+End there would
        // stop at its last row. The view goes there now and to the real last
        // row when the ordering arrives; any other key or click cancels it.
        m_endPending = key->key() == Qt::Key_End &&
                       key->modifiers().testFlag(Qt::ControlModifier) && !m_model->hasOrdering();
    } else if (event->type() == QEvent::MouseButtonPress) {
        m_endPending = false;
    }
    return QWidget::eventFilter(watched, event);
}

void MessagesPage::checkFirstPage() {
    if (!m_firstPagePending) {
        return;
    }
    const int top = std::max(0, m_view->rowAt(0));
    if (m_model->rowAt(top)) {
        m_firstPagePending = false;
        emit firstPageShown(m_doc->sinceOpenMs());
    }
}

void MessagesPage::rememberCurrent() {
    const QModelIndex cur = m_view->currentIndex();
    if (cur.isValid()) {
        if (const MessageRow* r = m_model->rowAt(cur.row())) {
            m_restoreId = fromStd(r->msg.messageId);
        }
    }
    m_restoreScroll = m_view->verticalScrollBar()->value();
    m_restorePosition = m_scroller->topPosition();
}

void MessagesPage::restoreCurrent() {
    if (std::exchange(m_topOnNextReset, false)) {
        // A new filter opens at the top, the message shown still selected
        // when the filter has it.
        m_restoreScroll = 0;
        m_restoreId = m_detail->messageId();
        m_keepTop = !m_restoreId.isEmpty();
    }
    const int scroll = m_restoreScroll;
    // A window over a long ordering starts at its top after a reset: the
    // position shown before comes back by moving the window (decided now, not
    // when the timer fires: the ordering may be windowed by then).
    const int position = m_model->isWindowed() && m_restoreScroll != 0 ? m_restorePosition : -1;
    const std::pair<int, int> atReset{m_view->verticalScrollBar()->value(), m_model->windowStart()};
    QTimer::singleShot(0, this, [this, scroll, position, atReset] {
        if (atReset != std::pair{m_view->verticalScrollBar()->value(), m_model->windowStart()}) {
            return; // scrolled since the reset (a jump, a key): that stays
        }
        if (position >= 0) {
            m_scroller->showPosition(position, QAbstractItemView::PositionAtTop);
        } else {
            m_view->verticalScrollBar()->setValue(scroll);
        }
    });
    if (!m_restoreId.isEmpty() && m_model->hasOrdering()) {
        m_model->locate(m_restoreId);
    }
    onCurrentChanged();
}

void MessagesPage::onCurrentChanged() {
    const QModelIndex cur = m_view->currentIndex();
    if (!cur.isValid() && m_keepTop && m_restoreId == m_detail->messageId()) {
        return; // the new filter is being searched for the message shown
    }
    if (cur.isValid() && m_view->selectionModel()->isRowSelected(cur.row(), {})) {
        m_detail->showRow(m_model->rowAt(cur.row()));
        return;
    }
    // Nothing chosen is highlighted. If the operator deselected the message
    // shown, clear the pane; if it left the table (an action moved it out of
    // the filter), keep it, marked, and never show a neighbour instead.
    const QString shown = m_detail->messageId();
    const MessageRow* at = cur.isValid() ? m_model->rowAt(cur.row()) : nullptr;
    if (shown.isEmpty() || (at && fromStd(at->msg.messageId) == shown)) {
        m_detail->showRow(nullptr);
        return;
    }
    // Ctrl with a navigation key moves the current cell and leaves the
    // selection (ExtendedSelection): the message shown is still selected,
    // only scrolled away. (A range of a thousand rows or more is a select-
    // all, not a message the pane follows.)
    for (const QItemSelectionRange& r : m_view->selectionModel()->selection()) {
        for (int row = r.top(); r.height() < 1000 && row <= r.bottom(); ++row) {
            const MessageRow* sel = m_model->rowAt(row);
            if (sel && fromStd(sel->msg.messageId) == shown) {
                return;
            }
        }
    }
    m_detail->markNotShown(tr("no longer in this filter"));
}

void MessagesPage::showContextMenu(const QPoint& pos) {
    QMenu menu(this);
    for (core::Action a : m_doc->format().rowActions()) {
        if (QAction* qa = m_actions->actionFor(a)) {
            menu.addAction(qa);
        }
    }
    menu.addSeparator();
    for (QAction* a : actions()) {
        menu.addAction(a); // the page's own (Copy message id)
    }
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void MessagesPage::updateEmptyState() {
    QString text;
    if (!m_doc->isOpen()) {
        text = !m_openError.isEmpty()
                   ? m_openError
                   : tr("No queue open.\n\nFile \u203a Open\u2026 (Ctrl+O) opens a queue file, "
                        "File \u203a Open Remote\u2026 one on a host over ssh.");
    } else if (m_model->rowCount() == 0 && m_model->isSettled()) {
        // Settled, not idle: a live re-read waiting out its pace (seconds on
        // a big file) must not hold back "no messages match".
        text = m_model->counts().stored == 0
                   ? tr("This queue is empty.")
                   : tr("No messages match this filter.\n\nAll (Ctrl+1) and an empty search "
                        "show every message.");
    }
    m_empty->setText(text);
}

void MessagesPage::updateStuckThreshold() {
    // The threshold is the operator's rule only where the library has none.
    const core::QueueFormat& format = m_doc->format();
    const QString rule = fromStd(format.stuckRule());
    const QString own = fromStd(format.ownStuckRule());
    const QString id = QString::fromLatin1(format.id());
    m_stuckSpin->setEnabled(rule.isEmpty());
    m_stuckSpin->setToolTip(
        rule.isEmpty()  ? tr("A LOCKED message whose lock is older than this is shown as stuck")
        : own.isEmpty() ? tr("Not used for %1 files, which have no stuck state (%2)").arg(id, rule)
                        : tr("Not used for %1 files: the library's own rule tells what is "
                             "stuck (%2)")
                              .arg(id, own));
}

} // namespace lq::ui
