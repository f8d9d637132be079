// SPDX-License-Identifier: MIT
// The claim-free writes over the remote protocol: enqueue, vacuum, upgrade,
// pause and resume, run-recurring (docs/PROTOCOL.md). The server runs each in its own transaction;
// the audit record is this machine's, naming ssh://HOST/PATH, as for the other remote actions.
#include "client.h"
#include "codec.h"

namespace lq::core::remote {

ActionResult RemoteQueue::enqueue(const std::string& data, const std::optional<std::string>& key,
                                  const Session::ChunkHandler& chunks, Message* stored) {
    Json p = Json::object();
    p.set("data", data);
    p.set("key", key ? Json(*key) : Json());
    const Json r = m_session->call("enqueue", std::move(p), &chunks);
    if (stored)
        *stored = messageFromJson(r["message"]);
    return actionResultFromJson(r["result"]);
}

std::pair<std::int64_t, std::int64_t> RemoteQueue::vacuum() {
    const Json r = m_session->call("vacuum");
    return {r["before"].toInt(), r["after"].toInt()};
}

std::pair<std::string, std::string> RemoteQueue::upgrade() {
    const Json r = m_session->call("upgrade");
    m_info = formatInfoFromJson(r["info"]);
    return {r["from"].toString(), r["to"].toString()};
}

ActionResult RemoteQueue::setPaused(const std::string& queueName, bool pause,
                                    const Session::ChunkHandler& chunks) {
    Json p = Json::object();
    p.set("queue", queueName);
    p.set("pause", pause);
    return actionResultFromJson(m_session->call("pause", std::move(p), &chunks));
}

ActionResult RemoteQueue::runRecurring(const std::string& taskKey,
                                       const Session::ChunkHandler& chunks) {
    Json p = Json::object();
    p.set("task", taskKey);
    return actionResultFromJson(m_session->call("run_recurring", std::move(p), &chunks));
}

Report RemoteOperator::enqueue(const std::string& data, const std::optional<std::string>& key,
                               Message* stored) {
    AuditEntry head = recordHeader(Action::Enqueue, m_q.url(), m_q.device(), m_q.inode(), m_tool);
    Report rep;
    rep.action = Action::Enqueue;
    rep.recordId = head.id;
    // As a local enqueue: the record (with the row) is written before the
    // insert commits; a record that cannot be written rolls the insert back.
    Session::ChunkHandler chunks;
    chunks.beforeCommit = [&](const ActionResult& chunk, std::size_t) {
        AuditEntry rec = head;
        rec.applied = chunk.applied;
        m_log.append(rec);
    };
    // A COMMIT that failed after the record: undo finds the row absent and
    // skips it (as for a local enqueue whose commit fails).
    chunks.rolledBack = [](std::size_t) {};
    rep.result = m_q.enqueue(data, key, chunks, stored);
    rep.result.action = Action::Enqueue;
    return rep;
}

Report RemoteOperator::vacuum(std::pair<std::int64_t, std::int64_t>* sizes) {
    AuditEntry head = recordHeader(Action::Vacuum, m_q.url(), m_q.device(), m_q.inode(), m_tool);
    const auto s = m_q.vacuum();
    if (sizes)
        *sizes = s;
    return recordVacuum(m_log, std::move(head), s);
}

Report RemoteOperator::upgrade() {
    AuditEntry head = recordHeader(Action::Upgrade, m_q.url(), m_q.device(), m_q.inode(), m_tool);
    const auto [from, to] = m_q.upgrade();
    return recordUpgrade(m_log, std::move(head), from, to);
}

Report RemoteOperator::pause(const std::string& queueName) {
    return recorded(
        recordHeader(Action::Pause, m_q.url(), m_q.device(), m_q.inode(), m_tool),
        [&](ActionOptions& o) {
            return m_q.setPaused(queueName, true, {o.beforeCommit, o.rolledBack});
        },
        nullptr);
}

Report RemoteOperator::resume(const std::string& queueName) {
    return recorded(
        recordHeader(Action::Resume, m_q.url(), m_q.device(), m_q.inode(), m_tool),
        [&](ActionOptions& o) {
            return m_q.setPaused(queueName, false, {o.beforeCommit, o.rolledBack});
        },
        nullptr);
}

Report RemoteOperator::runRecurring(const std::string& taskKey) {
    AuditEntry head =
        recordHeader(Action::RunRecurring, m_q.url(), m_q.device(), m_q.inode(), m_tool);
    head.note = "recurring task " + taskKey;
    return recorded(
        std::move(head),
        [&](ActionOptions& o) {
            return m_q.runRecurring(taskKey, {o.beforeCommit, o.rolledBack});
        },
        nullptr);
}

} // namespace lq::core::remote
