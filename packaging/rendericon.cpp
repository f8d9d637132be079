// SPDX-License-Identifier: MIT
// lqrendericon SVG PNG SIZE: renders the application icon as a SIZE x SIZE
// PNG for the hicolor icon theme. Run at build time (packaging/CMakeLists.txt)
// so no rendered PNG is kept in the repository.
#include <QCoreApplication>
#include <QImage>
#include <QPainter>
#include <QStringList>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char* argv[]) {
    // Shapes only: no GUI application, so no display or platform plugin.
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    bool ok = false;
    const int size = args.size() == 4 ? args[3].toInt(&ok) : 0;
    if (!ok || size < 1 || size > 4096) {
        std::fprintf(stderr, "usage: lqrendericon SVG PNG SIZE\n");
        return 2;
    }
    QSvgRenderer svg(args[1]);
    if (!svg.isValid()) {
        std::fprintf(stderr, "lqrendericon: %s: not a valid SVG file\n", qPrintable(args[1]));
        return 1;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    if (!image.save(args[2], "PNG")) {
        std::fprintf(stderr, "lqrendericon: %s: cannot write the PNG\n", qPrintable(args[2]));
        return 1;
    }
    return 0;
}
