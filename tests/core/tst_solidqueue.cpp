// SPDX-License-Identifier: MIT
#include <QObject>
#include <QTest>
class TstSolidQueue : public QObject {
    Q_OBJECT
};
QTEST_GUILESS_MAIN(TstSolidQueue)
#include "tst_solidqueue.moc"
