<?php
/*
 * SPDX-License-Identifier: MIT
 * lqbench observer (issue 38): Laravel's own database-queue worker loop, flat
 * out, and a producer at a fixed rate, on Debian's php-illuminate-queue 8.83
 * (DatabaseQueue through the Capsule managers, set up as
 * tests/stress/laravel/laravel_client.php does).
 *
 *   php laravel_worker.php worker   FILE --seconds S [--busy-timeout-ms MS] [--queue default]
 *   php laravel_worker.php producer FILE --seconds S [--busy-timeout-ms MS] [--rate JOBS_PER_S]
 *                                        [--queue default]
 *
 * worker: DatabaseQueue::pop() (Laravel's transaction: select the oldest
 * available or expired job of the queue, mark it reserved), then
 * DatabaseJob::delete() (deleteReserved's transaction), again and again for
 * S seconds. No job body runs: the figure is what the queue's writes cost.
 * producer: DatabaseQueue::push() at a fixed rate for S seconds (on a
 * schedule, so a slow push is caught up, not skipped; none after S).
 *
 * Each write (pop, delete, push) is timed with hrtime(true), failed ones too
 * (a "database is locked" may have waited the busy timeout first). At the end one JSON
 * line on stdout:
 *   {"role", "jobs" (popped and deleted, or pushed), "elapsed_s", "locked"
 *    ("database is locked" errors), "errors" (any other), "first_error",
 *    "empty_pops", "cpu_s", "writes", "locked_waits_us" (how long each locked write
 *    took: about the busy timeout when it waited, less when SQLite refused at
 *    once), "waits_us" (every write, microseconds)}
 * A write that fails is reported and the loop goes on, as Laravel's Worker
 * does.
 */
set_include_path('/usr/share/php');
require_once 'Illuminate/Queue/autoload.php';
require_once 'Illuminate/Events/autoload.php';
require_once 'Illuminate/Bus/autoload.php';
date_default_timezone_set('UTC');

use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as DB;
use Illuminate\Queue\Capsule\Manager as Queue;

class ObserverBenchJob implements Illuminate\Contracts\Queue\ShouldQueue {
    use Illuminate\Bus\Queueable, Illuminate\Queue\InteractsWithQueue;
    public $n;
    public function __construct($n) { $this->n = $n; }
    public function handle() {}
}

function opt($argv, $name, $default) {
    $i = array_search($name, $argv, true);
    return $i === false ? $default : $argv[$i + 1];
}

[$self, $role, $file] = array_pad($argv, 3, null);
if (!in_array($role, ['worker', 'producer'], true) || !$file || !file_exists($file)) {
    fwrite(STDERR, "usage: laravel_worker.php worker|producer FILE --seconds S "
                   . "[--busy-timeout-ms MS] [--rate N] [--queue Q]\n");
    exit(2);
}
$seconds = (float)opt($argv, '--seconds', 30);
$busyMs = (int)opt($argv, '--busy-timeout-ms', 60000);
$rate = (float)opt($argv, '--rate', 100);
$queueName = opt($argv, '--queue', 'default');

$app = new Container;
Container::setInstance($app);
$app->instance(Illuminate\Contracts\Container\Container::class, $app);
$capsule = new DB($app);
$capsule->addConnection(['driver' => 'sqlite', 'database' => $file, 'prefix' => '',
                         'foreign_key_constraints' => true]);
$capsule->setAsGlobal();
$pdo = $capsule->getConnection()->getPdo();
$pdo->exec('PRAGMA busy_timeout = ' . $busyMs);
$app->instance('db', $capsule->getDatabaseManager());
$events = new Illuminate\Events\Dispatcher($app);
$app->instance('events', $events);
$app->instance(Illuminate\Contracts\Events\Dispatcher::class, $events);
$app->singleton(Illuminate\Contracts\Bus\Dispatcher::class,
                function ($app) { return new Illuminate\Bus\Dispatcher($app); });

$queue = new Queue($app);
// retry_after as the skeleton's config/queue.php.
$queue->addConnection(['driver' => 'database', 'table' => 'jobs', 'queue' => $queueName,
                       'retry_after' => 90]);
$app->instance('queue', $queue->getQueueManager());
$q = $queue->getConnection();

$waits = [];
$lockedWaits = [];
$locked = 0;
$errors = 0;
$firstError = null;
$jobs = 0;
$empty = 0;

/* Runs one write, timed; false when it threw. */
function timed(callable $write, &$result) {
    global $waits, $lockedWaits, $locked, $errors, $firstError;
    $t0 = hrtime(true);
    try {
        $result = $write();
        $waits[] = intdiv(hrtime(true) - $t0, 1000);
        return true;
    } catch (Throwable $e) {
        $waits[] = intdiv(hrtime(true) - $t0, 1000);
        $text = str_replace("\n", " ", get_class($e) . ": " . $e->getMessage());
        if (str_contains($text, 'database is locked')) {
            $locked++;
            $lockedWaits[] = end($waits);
        } else {
            $errors++;
        }
        if ($firstError === null) {
            $firstError = substr($text, 0, 300);
        }
        return false;
    }
}

// One untimed round first: PHP autoloads the classes of the query builder,
// the grammar and the job on first use (tens of ms), which is no write's wait.
try {
    if ($role === 'worker') {
        if ($job = $q->pop($queueName))
            $job->delete();
    } else {
        $q->push(new ObserverBenchJob(-1), '', $queueName);
    }
} catch (Throwable $e) {
}

$start = hrtime(true);
$end = $start + (int)($seconds * 1e9);
if ($role === 'worker') {
    while (hrtime(true) < $end) {
        $job = null;
        if (!timed(function () use ($q, $queueName) { return $q->pop($queueName); }, $job))
            continue;
        if (!$job) {
            $empty++;
            usleep(10000);
            continue;
        }
        $ignored = null;
        if (timed(function () use ($job) { $job->delete(); return true; }, $ignored))
            $jobs++;
    }
} else {
    $period = 1e9 / max($rate, 0.001);
    for ($n = 0;; $n++) {
        $due = $start + (int)($n * $period);
        $now = hrtime(true);
        if ($due >= $end || $now >= $end)
            break;
        if ($due > $now)
            usleep(intdiv($due - $now, 1000));
        $id = null;
        if (timed(function () use ($q, $n, $queueName) {
            return $q->push(new ObserverBenchJob($n), '', $queueName);
        }, $id))
            $jobs++;
    }
}
$elapsed = (hrtime(true) - $start) / 1e9;
$ru = getrusage();
$cpu = $ru['ru_utime.tv_sec'] + $ru['ru_utime.tv_usec'] / 1e6 + $ru['ru_stime.tv_sec']
     + $ru['ru_stime.tv_usec'] / 1e6;
echo json_encode(['role' => $role, 'jobs' => $jobs, 'elapsed_s' => $elapsed,
                  'locked' => $locked, 'errors' => $errors, 'first_error' => $firstError,
                  'empty_pops' => $empty, 'cpu_s' => $cpu, 'writes' => count($waits),
                  'locked_waits_us' => $lockedWaits, 'waits_us' => $waits]), "\n";
exit(0);
