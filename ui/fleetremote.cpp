// SPDX-License-Identifier: MIT
#include "ui/fleetremote.h"

#include "core/error.h"
#include "core/remote/client.h"
#include "core/remote/folder.h"

#include <QFileInfo>

#include <set>

namespace lq::ui {

bool isRemotePath(const QString& path) {
    return core::remote::isRemoteUrl(path.toStdString());
}

QString folderOf(const QString& path) {
    if (isRemotePath(path)) {
        return path.left(path.lastIndexOf(QLatin1Char('/')));
    }
    return QFileInfo(path).absolutePath();
}

RemoteFolders::RemoteFolders() = default;
RemoteFolders::~RemoteFolders() = default;

std::vector<core::FleetEntry> RemoteFolders::scan(const std::vector<std::string>& urls,
                                                  core::TimeNs now, core::TimeNs stuckAfterNs) {
    const std::set<std::string> wanted(urls.begin(), urls.end());
    std::erase_if(m_open, [&wanted](const auto& kv) { return !wanted.contains(kv.first); });
    std::vector<core::FleetEntry> out;
    for (const std::string& url : wanted) {
        try {
            auto& folder = m_open[url];
            if (!folder) {
                folder = core::remote::RemoteFolder::open(url);
            }
            // The sidebar's clock, as for local files (its ages use it too).
            for (auto& e : folder->scan(now, stuckAfterNs)) {
                out.push_back(std::move(e));
            }
        } catch (const std::exception& e) {
            m_open.erase(url); // connect again at the next scan
            core::FleetEntry skipped;
            skipped.path = url;
            skipped.skipped = true;
            skipped.reason = e.what();
            skipped.errorKind = core::ErrorKind::Io;
            if (const auto* err = dynamic_cast<const core::Error*>(&e)) {
                skipped.errorKind = err->kind();
            }
            out.push_back(std::move(skipped));
        }
    }
    return out;
}

} // namespace lq::ui
