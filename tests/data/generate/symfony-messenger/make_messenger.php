<?php
/*
 * Writes tests/data/formats/symfony-messenger.sqlite3 with the REAL Symfony
 * Messenger code from Debian 12: php-symfony-messenger and
 * php-symfony-doctrine-messenger 5.4.53+dfsg-0+deb12u1 (the Doctrine
 * transport: Symfony\Component\Messenger\Bridge\Doctrine\Transport\
 * {Connection,DoctrineTransport,DoctrineReceiver,DoctrineSender}) on
 * php-doctrine-dbal 3.6.1 (pdo_sqlite, php8.2-sqlite3), with
 * php-symfony-event-dispatcher and php-symfony-error-handler 5.4.53 (the
 * worker's events; ErrorDetailsStamp's FlattenException, as in every
 * framework app).
 *
 *   apt-get install -y php8.2-cli php8.2-sqlite3 php-symfony-messenger \
 *       php-symfony-doctrine-messenger php-doctrine-dbal \
 *       php-symfony-event-dispatcher php-symfony-error-handler faketime
 *   php make_messenger.php <out.sqlite3> [<last-run.json>]
 *
 * What runs is the library: the table comes from DoctrineTransport::setup()
 * (Connection's own schema); messages are dispatched through a MessageBus with
 * AddBusNameStampMiddleware, SendMessageMiddleware (SendersLocator routing per
 * message class, DelayStamp where noted) and HandleMessageMiddleware; they are
 * consumed by Symfony\Component\Messenger\Worker with the listeners a
 * framework app registers on it: AddErrorDetailsStampListener,
 * SendFailedMessageForRetryListener (MultiplierRetryStrategy: the framework's
 * default 3 retries, 1 s, x2; 30 min for the `imports` transport) and
 * SendFailedMessageToFailureTransportListener (the failure transport `failed`,
 * the same table with queue_name 'failed'). Envelopes are encoded by the
 * transport's default PhpSerializer.
 *
 * Transports (name => DSN): async => doctrine://default (queue_name
 * 'default', the recipe's MESSENGER_TRANSPORT_DSN), async_priority_high =>
 * doctrine://default?queue_name=high, reports => ...?queue_name=reports,
 * imports => ...?queue_name=imports, failed => ...?queue_name=failed.
 *
 * Only the clock is replaced: Connection reads `new \DateTime()`, so the
 * script runs itself again under libfaketime (Debian's faketime package) with
 * FAKETIME_TIMESTAMP_FILE, and each step below writes the time it happens at
 * into that file (a frozen clock; a worker loop moves it on by one second, so
 * that a retry's DelayStamp falls due). Times are stored as Doctrine's
 * DATETIME_MUTABLE, 'Y-m-d H:i:s' in the PHP default time zone, UTC here.
 *
 * The crashed worker: at 07:30 a `reports` worker's receiver get() delivers
 * GenerateReport #1 (delivered_at 07:30:00) and the worker dies before it
 * acks (the script drops the envelope): nothing is forced, the delivery is
 * just older than redeliver_timeout (3600 s) at the facts' now, 12:00:00 UTC.
 * A live worker's delivery (11:40) is within it.
 */
namespace {
set_include_path('/usr/share/php');

$out = $argv[1] ?? null;
$lastRun = $argv[2] ?? null;
if ($out === null) {
    fwrite(STDERR, "usage: php make_messenger.php <out.sqlite3> [<last-run.json>]\n");
    exit(2);
}

// ---- the clock: run again under libfaketime --------------------------------------
if (getenv('FAKETIME_TIMESTAMP_FILE') === false) {
    $lib = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
    if (!is_file($lib)) {
        fwrite(STDERR, "libfaketime not found: apt-get install faketime\n");
        exit(2);
    }
    $clock = tempnam(sys_get_temp_dir(), 'lq-messenger-clock-');
    file_put_contents($clock, "2026-11-30 07:00:00\n");
    $cmd = sprintf('LD_PRELOAD=%s FAKETIME_TIMESTAMP_FILE=%s FAKETIME_NO_CACHE=1 %s %s %s',
        escapeshellarg($lib), escapeshellarg($clock), escapeshellarg(PHP_BINARY),
        escapeshellarg(__FILE__), implode(' ', array_map('escapeshellarg', array_slice($argv, 1))));
    passthru($cmd, $rc);
    unlink($clock);
    exit($rc);
}

require_once 'Symfony/Component/Messenger/autoload.php';
require_once 'Symfony/Component/EventDispatcher/autoload.php';
require_once 'Symfony/Component/ErrorHandler/autoload.php';
require_once 'Doctrine/DBAL/autoload.php';
require_once 'Psr/Container/autoload.php';
date_default_timezone_set('UTC');
}

// ---- the app's messages, exceptions and handlers -------------------------------------
namespace App\Message {

final class SendNewsletter { public $issue; public $subscriberId;
    public function __construct(int $issue, int $subscriberId) { $this->issue = $issue; $this->subscriberId = $subscriberId; } }
final class ResizeImage { public $imageId; public function __construct(int $imageId) { $this->imageId = $imageId; } }
final class SendReminder { public $userId; public function __construct(int $userId) { $this->userId = $userId; } }
final class ChargeCard { public $orderId; public $cents;
    public function __construct(int $orderId, int $cents) { $this->orderId = $orderId; $this->cents = $cents; } }
final class GenerateReport { public $reportId; public function __construct(int $reportId) { $this->reportId = $reportId; } }
final class ImportCatalog { public $supplierId; public function __construct(int $supplierId) { $this->supplierId = $supplierId; } }
}

namespace App\Exception {

final class PaymentDeclinedException extends \RuntimeException {}
}

namespace App {

final class Locator implements \Psr\Container\ContainerInterface
{
    private $items;
    public function __construct(array $items) { $this->items = $items; }
    public function get($id) { return $this->items[$id]; }
    public function has($id): bool { return isset($this->items[$id]); }
}

}

namespace {
use Doctrine\DBAL\DriverManager;
use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\Messenger\Bridge\Doctrine\Transport\Connection;
use Symfony\Component\Messenger\Bridge\Doctrine\Transport\DoctrineTransport;
use Symfony\Component\Messenger\Event\WorkerRunningEvent;
use Symfony\Component\Messenger\EventListener\AddErrorDetailsStampListener;
use Symfony\Component\Messenger\EventListener\SendFailedMessageForRetryListener;
use Symfony\Component\Messenger\EventListener\SendFailedMessageToFailureTransportListener;
use Symfony\Component\Messenger\EventListener\StopWorkerOnMessageLimitListener;
use Symfony\Component\Messenger\Exception\UnrecoverableMessageHandlingException;
use Symfony\Component\Messenger\Handler\HandlersLocator;
use Symfony\Component\Messenger\MessageBus;
use Symfony\Component\Messenger\Middleware\AddBusNameStampMiddleware;
use Symfony\Component\Messenger\Middleware\HandleMessageMiddleware;
use Symfony\Component\Messenger\Middleware\SendMessageMiddleware;
use Symfony\Component\Messenger\Retry\MultiplierRetryStrategy;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Transport\Sender\SendersLocator;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Worker;
use App\Locator;
use App\Message;

$clockFile = getenv('FAKETIME_TIMESTAMP_FILE');
function at(string $t): void
{
    global $clockFile;
    file_put_contents($clockFile, "2026-11-30 $t\n");
    if ((new \DateTime())->format('H:i:s') !== $t) {
        fwrite(STDERR, "the fake clock is not in effect\n");
        exit(1);
    }
}
function tick(): void
{
    global $clockFile;
    $now = new \DateTime();
    file_put_contents($clockFile, $now->modify('+1 second')->format('Y-m-d H:i:s') . "\n");
}

// ---- the database ---------------------------------------------------------------------
// Only the transport's table: an app's own tables beside it are added by the
// tests (tst_messenger), which keeps this file under 64 KB.
@unlink($out);
$dbal = DriverManager::getConnection(['driver' => 'pdo_sqlite', 'path' => $out]);

// ---- the transports ---------------------------------------------------------------------
$serializer = new PhpSerializer();
$dsn = ['async' => 'default', 'async_priority_high' => 'high', 'reports' => 'reports',
        'imports' => 'imports', 'failed' => 'failed'];
$transports = [];
foreach ($dsn as $name => $queue) {
    $config = Connection::buildConfiguration($queue === 'default' ? 'doctrine://default'
        : "doctrine://default?queue_name=$queue");
    $transports[$name] = new DoctrineTransport(new Connection($config, $dbal), $serializer);
}
$transports['failed']->setup(); // messenger:setup-transports: Connection::setup()

$routing = [
    Message\SendNewsletter::class => ['async'], Message\ResizeImage::class => ['async'],
    Message\SendReminder::class => ['async'], Message\ChargeCard::class => ['async_priority_high'],
    Message\GenerateReport::class => ['reports'], Message\ImportCatalog::class => ['imports'],
];
$handlers = [
    Message\SendNewsletter::class => [function (Message\SendNewsletter $m) {}],
    Message\SendReminder::class => [function (Message\SendReminder $m) {}],
    Message\GenerateReport::class => [function (Message\GenerateReport $m) {}],
    Message\ResizeImage::class => [function (Message\ResizeImage $m) {
        throw new UnrecoverableMessageHandlingException("image {$m->imageId} is corrupt: not a JPEG");
    }],
    Message\ChargeCard::class => [function (Message\ChargeCard $m) {
        throw new \App\Exception\PaymentDeclinedException("card declined for order {$m->orderId} (insufficient funds)", 402);
    }],
    Message\ImportCatalog::class => [function (Message\ImportCatalog $m) {
        throw new \RuntimeException("supplier {$m->supplierId} feed returned HTTP 503");
    }],
];
$senders = new Locator($transports);
$bus = new MessageBus([
    new AddBusNameStampMiddleware('messenger.bus.default'),
    new SendMessageMiddleware(new SendersLocator($routing, $senders)),
    new HandleMessageMiddleware(new HandlersLocator($handlers)),
]);
$retry = [];
foreach (array_keys($dsn) as $name) {
    $retry[$name] = $name === 'imports' ? new MultiplierRetryStrategy(3, 1800000, 2)
        : new MultiplierRetryStrategy(3, 1000, 2);
}
$failureSenders = new Locator(array_fill_keys(['async', 'async_priority_high', 'reports', 'imports'],
    $transports['failed']));

/** The worker of `messenger:consume NAME --limit=N`, with a framework app's listeners. */
function worker($bus, array $transports, $senders, array $retry, $failureSenders, string $name, int $limit): Worker
{
    $events = new EventDispatcher();
    $events->addSubscriber(new AddErrorDetailsStampListener());
    $events->addSubscriber(new SendFailedMessageForRetryListener($senders, new Locator($retry)));
    $events->addSubscriber(new SendFailedMessageToFailureTransportListener($failureSenders));
    $events->addSubscriber(new StopWorkerOnMessageLimitListener($limit));
    $events->addListener(WorkerRunningEvent::class, function () { tick(); });
    return new Worker([$name => $transports[$name]], $bus, $events);
}

$ids = [];
$lastId = function () use ($dbal) { return (int) $dbal->fetchOne('SELECT max(id) FROM messenger_messages'); };

// 07:00 a report is dispatched; 07:30 a reports worker receives it and dies.
\at('07:00:00');
$bus->dispatch(new Message\GenerateReport(1));
$ids['report_crashed'] = $lastId();
\at('07:30:00');
foreach ($transports['reports']->get() as $crashed) {
    // The worker process was killed here: no ack, no reject.
}

// 09:00 the morning batch.
\at('09:00:00');
$bus->dispatch(new Message\ResizeImage(42));
foreach ([11, 12, 13, 14] as $subscriber) {
    $bus->dispatch(new Message\SendNewsletter(48, $subscriber));
}
$ids['newsletters_left'] = [$lastId() - 1, $lastId()];
$bus->dispatch(new Message\ChargeCard(1001, 10010));

// 09:05 the high-priority worker: the charge fails four times (the first
// run and 3 retries at 1, 2, 4 s), then goes to the failure transport.
\at('09:05:00');
worker($bus, $transports, $senders, $retry, $failureSenders, 'async_priority_high', 4)->run(['sleep' => 0]);

// 09:10 the async worker handles three: the image (unrecoverable: straight
// to the failure transport) and two newsletters (acked: deleted).
\at('09:10:00');
worker($bus, $transports, $senders, $retry, $failureSenders, 'async', 3)->run(['sleep' => 0]);

// 10:00 a reminder delayed by a day (DelayStamp, milliseconds).
\at('10:00:00');
$bus->dispatch(new Message\SendReminder(7), [new DelayStamp(86400 * 1000)]);
$ids['reminder'] = $lastId();

// 11:00 a report delayed by 2 h, an import.
\at('11:00:00');
$bus->dispatch(new Message\GenerateReport(3), [new DelayStamp(2 * 3600 * 1000)]);
$ids['report_delayed'] = $lastId();
$bus->dispatch(new Message\ImportCatalog(7));

// 11:30, 11:45 two charges; 11:40 a live worker receives the first and is
// still handling it at 12:00.
\at('11:30:00');
$bus->dispatch(new Message\ChargeCard(1003, 10030));
$ids['charge_live'] = $lastId();
\at('11:40:00');
foreach ($transports['async_priority_high']->get() as $live) {
}
\at('11:45:00');
$bus->dispatch(new Message\ChargeCard(1004, 10040));
$ids['charge_ready'] = $lastId();

// 11:50 the imports worker: the import fails, its retry waits 30 min (12:20).
\at('11:50:00');
worker($bus, $transports, $senders, $retry, $failureSenders, 'imports', 1)->run(['sleep' => 0]);
$ids['import_retry'] = $lastId();

$ids['failed'] = array_map('intval', $dbal->fetchFirstColumn("SELECT id FROM messenger_messages WHERE queue_name = 'failed' ORDER BY id"));
$dbal->close();

$facts = [
    'now' => '2026-11-30T12:00:00Z',
    'now_stored' => '2026-11-30 12:00:00',
    'php' => PHP_VERSION,
    'symfony_messenger' => '5.4.53+dfsg-0+deb12u1',
    'doctrine_dbal' => '3.6.1+dfsg-1',
    'redeliver_timeout_s' => 3600,
    'retry' => 'MultiplierRetryStrategy(3, 1000 ms, x2); imports: (3, 1800000 ms, x2)',
    'ids' => $ids,
];
if ($lastRun !== null) {
    file_put_contents($lastRun, json_encode($facts, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");
}
echo json_encode($ids), "\n";
}
