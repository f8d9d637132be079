// SPDX-License-Identifier: MIT
// Run by make_pg_boss.sh (beside it): pg-boss's own API makes its schema
// and leaves jobs in each of its states.
//   node pg_boss_jobs.mjs URL jobs  schema, queues, jobs; workers run "email"
//   node pg_boss_jobs.mjs URL hold  a worker takes both "export" jobs and
//                                   holds them until it is killed (kill -9)
// No supervisor, maintenance or cron (supervise: false, schedule: false):
// nothing but these calls changes a row.
import { PgBoss } from 'pg-boss'

const [url, mode] = process.argv.slice(2)
const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false })
boss.on('error', (e) => console.error(e))
await boss.start()

// Ids chosen by the caller (pg-boss's send option `id`): b1… to b9…
const id = (n) => `b${n}000000-0000-4000-8000-00000000000${n}`
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
async function until (name, n, state) {
  for (let i = 0; i < 200; ++i) {
    const job = await boss.getJobById(name, id(n))
    if (job && job.state === state) return
    await sleep(100)
  }
  throw new Error(`${name} ${id(n)} never reached ${state}`)
}

if (mode === 'jobs') {
  await boss.createQueue('email')
  await boss.createQueue('reports')
  await boss.createQueue('export')

  // Run by a worker: completed, failed twice (retries exhausted), failed
  // once with a retry an hour later.
  await boss.send('email', { to: 'ana@example.com' }, { id: id(1) })
  await boss.send('email', { to: 'bo@example.com', fail: 'SMTP 550 mailbox unavailable' },
    { id: id(2), retryLimit: 1, retryDelay: 0 })
  await boss.send('email', { to: 'cy@example.com', fail: 'connection reset' },
    { id: id(3), retryLimit: 2, retryDelay: 3600 })
  await boss.work('email', { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    if (job.data.fail) throw new Error(job.data.fail)
    return { sent: true }
  })
  await until('email', 1, 'completed')
  await until('email', 2, 'failed')
  await until('email', 3, 'retry')
  await boss.offWork('email')

  // No worker runs these: ready, ready with a singleton key, scheduled a
  // day later, cancelled.
  await boss.send('email', { to: 'di@example.com' }, { id: id(4), priority: 5 })
  await boss.send('reports', { month: '2026-11' }, { id: id(5), singletonKey: 'report-2026-11' })
  await boss.send('reports', { month: '2026-12' }, { id: id(6), startAfter: 86400 })
  await boss.send('reports', { month: '2026-10' }, { id: id(7) })
  await boss.cancel('reports', id(7))

  // Taken by the "hold" worker: one expires 10 s after it started, the
  // other 6 hours after.
  await boss.send('export', { export: 8 }, { id: id(8), expireInSeconds: 10 })
  await boss.send('export', { export: 9 }, { id: id(9), expireInSeconds: 21600 })
  await boss.stop({ graceful: true, wait: true })
} else if (mode === 'hold') {
  await boss.work('export', { batchSize: 2, pollingIntervalSeconds: 0.5 }, async () => {
    console.error('hold: took the export jobs')
    await new Promise(() => {}) // until kill -9
  })
} else {
  throw new Error('mode: jobs or hold')
}
