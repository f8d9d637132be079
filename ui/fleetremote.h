// SPDX-License-Identifier: MIT
#pragma once

// The fleet sidebar's folders on other hosts (`lqadmin --watch
// ssh://HOST/DIR`): one `lqctl serve` session per folder, kept open between
// scans, each scan one `fleet` request (the host scans the folder as a
// local scan does). Used only from the FleetModel's scan worker (one
// thread), never from the UI thread.

#include "core/clock.h"
#include "core/fleet.h"

#include <QString>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lq::core::remote {
class RemoteFolder;
}

namespace lq::ui {

/// True for ssh://… (a folder or file on another host).
bool isRemotePath(const QString& path);
/// The folder that holds `path` (a URL keeps its ssh://HOST part).
QString folderOf(const QString& path);

class RemoteFolders {
public:
    RemoteFolders();
    ~RemoteFolders();
    RemoteFolders(const RemoteFolders&) = delete;
    RemoteFolders& operator=(const RemoteFolders&) = delete;

    /// Scans every folder of `urls` (connecting where needed) and closes the
    /// sessions of folders no longer listed. A folder that cannot be reached
    /// is one skipped entry naming the URL and what ssh said; its session is
    /// dropped and opened again at the next scan.
    std::vector<core::FleetEntry> scan(const std::vector<std::string>& urls, core::TimeNs now,
                                       core::TimeNs stuckAfterNs);

private:
    std::map<std::string, std::unique_ptr<core::remote::RemoteFolder>> m_open;
};

} // namespace lq::ui
