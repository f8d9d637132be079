// SPDX-License-Identifier: MIT
// warmHeapForRows(): the page faults of a big allocation on this thread are
// taken by a worker beforehand (counted with getrusage(RUSAGE_THREAD)).
#include "ui/heapwarmup.h"

#include <QCoreApplication>
#include <QTest>

#include <cstdlib>

#if defined(__GLIBC__)
#include <sys/resource.h>
#endif

class TstHeapWarmup : public QObject {
    Q_OBJECT
private slots:
    void theWorkerTakesTheFaults();
};

namespace {

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
long faultsOfThisThread() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_minflt;
}

/// Minor faults this thread takes to allocate and write `bytes`.
long faultsToFill(std::size_t bytes) {
    const long before = faultsOfThisThread();
    auto* p = static_cast<volatile char*>(std::malloc(bytes));
    for (std::size_t i = 0; i < bytes; i += 512) {
        p[i] = 1; // volatile: the compiler may not drop the allocation
    }
    const long faults = faultsOfThisThread() - before;
    std::free(const_cast<char*>(p));
    return faults;
}
#endif

} // namespace

void TstHeapWarmup::theWorkerTakesTheFaults() {
#if !defined(__GLIBC__)
    QSKIP("glibc only");
#elif defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer's allocator is not glibc's heap");
#else
    const std::size_t rows = 1000000;
    const std::size_t bytes = rows * 12; // what QHeaderView asks for
    // Cold: every page of a fresh allocation faults on this thread.
    const long cold = faultsToFill(bytes);
    QVERIFY2(cold > long(bytes / 4096 / 2), qPrintable(QString::number(cold)));
    lq::ui::warmHeapForRows(rows);
    lq::ui::waitForHeapWarmups();
    const long warm = faultsToFill(bytes);
    qInfo("faults on this thread to fill %zu bytes: %ld cold, %ld after the warm-up", bytes, cold,
          warm);
    QVERIFY2(warm < cold / 10, qPrintable(QStringLiteral("cold %1, warm %2").arg(cold).arg(warm)));
#endif
}

QTEST_GUILESS_MAIN(TstHeapWarmup)
#include "tst_heapwarmup.moc"
