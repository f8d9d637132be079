// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QWidget>

#include <functional>

class QVBoxLayout;

namespace lq::ui {

/// A strip of warnings above the table: read-only, legacy format, an
/// unexpected trigger, a deleted file... Each banner has a key, plain text
/// (it may quote the file) and an optional button.
class BannerBar : public QWidget {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };

    explicit BannerBar(QWidget* parent = nullptr);

    void setBanner(const QString& key, Level level, const QString& text,
                   const QString& buttonText = {}, const std::function<void()>& onButton = {});
    void removeBanner(const QString& key);
    /// Keeps the place of banner `key` in the strip, blank while it is not
    /// shown, so that raising or removing it moves nothing below the strip.
    void reserve(const QString& key, bool on);
    bool isReserved(const QString& key) const { return m_reserved.contains(key); }
    void clear();
    bool hasBanner(const QString& key) const { return m_banners.contains(key); }
    QString bannerText(const QString& key) const;
    QStringList keys() const { return m_banners.keys(); }

private:
    QVBoxLayout* m_layout;
    QHash<QString, QWidget*> m_banners;
    QHash<QString, std::function<void()>> m_actions; ///< each banner's button action
    QHash<QString, QWidget*> m_reserved;             ///< places kept (reserve())

    void blank(QWidget* frame);
};

} // namespace lq::ui
