/**
 * The state file in the server's custody, judged as its operator sees it (`marketapi-contract
 * custody`): the tester starts the user's server command itself, on files of its own, and does to
 * them what other programs and machines do. Every scenario holds one promise, that an order the
 * server acknowledged is there at the next start on the same path, and the operator's side of it:
 * - one writer, whatever name opens it: a second server on the file (by the same name, another
 *   spelling of it, a symbolic link, a hard link) is refused at start, naming the path it was
 *   given and the process that holds the file, while the first goes on serving and keeping;
 * - the file taken away under a running server (deleted, renamed away, replaced by a copy): no
 *   order is acknowledged that the next start on the path would not know;
 * - a damaged file at start (cut short, a page zeroed, text in its place, a value altered):
 *   refused, naming the path (and what arrived), and every file left as it was;
 * - kill -9 during a first start: the path stays usable;
 * - a full disk (a file-size limit set on the running server with `prlimit`): orders refused
 *   once nothing more can be written, every acknowledged one kept and no refused one, and orders
 *   taken again once there is room; a disk full from the first start: refused, and the path
 *   usable once there is room;
 * - a stop (SIGTERM) while orders arrive, and a long history (opt-in);
 * - open files: work that ended (orders on connections since closed) leaves none open.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import {
  type CustodyContext,
  CustodyStop,
  endingText,
  firstStart,
  folder,
  judged,
  judgement,
  lastLines,
  madeFile,
  quoteProblems,
  refusalProblems,
  STATE_NAME,
  serving,
  start,
} from "./custody-context.js";
import {
  afterKill,
  cancel,
  cancelAll,
  type Desk,
  deskAt,
  judgeFound,
  judgeKept,
  judgeListed,
  lookUpOrder,
  type Placed,
  pingAt,
  place,
  placeKept,
} from "./custody-orders.js";
import { limitFileSize, type OperatedServer, openFileCount } from "./operated-server.js";
import type { Judgement } from "./persistence.js";

export {
  CannotRun,
  type CustodyContext,
  CustodyStop,
  quoteProblems,
  refusalProblems,
} from "./custody-context.js";

/** One writer, whatever name opens the file. */
export async function oneWriter(context: CustodyContext): Promise<Judgement> {
  const dir = folder(context, "one-writer");
  return judged(context, "one writer", async (out) => {
    const first = await firstStart(context, dir);
    const desk = await deskAt(context, first);
    const kept = [await placeKept(desk, "custody-writer-1")];
    symlinkSync(STATE_NAME, join(dir, "link.db"));
    mkdirSync(join(dir, "sub"));
    const holder = first.pids();
    for (const name of [
      STATE_NAME,
      `./${STATE_NAME}`,
      join(dir, STATE_NAME),
      `sub/../${STATE_NAME}`,
      "link.db",
    ])
      await secondWriter(context, dir, name, first, holder, out);
    // A hard link last, and removed after: a server may refuse a file of two names in any case.
    if (madeFile(dir, "one writer: the hard link", out)) {
      linkSync(join(dir, STATE_NAME), join(dir, "hard.db"));
      await secondWriter(context, dir, "hard.db", first, [], out);
      rmSync(join(dir, "hard.db"));
    }
    kept.push(await placeKept(desk, "custody-writer-2"));
    await judgeKept(await afterKill(context, first, dir), kept, "one writer", out);
  });
}

/** A second server on the file by `name` while `first` serves it: refused, naming one of `holders`. */
async function secondWriter(
  context: CustodyContext,
  dir: string,
  name: string,
  first: OperatedServer,
  holders: readonly number[],
  out: Judgement,
): Promise<void> {
  const subject = `one writer: a second server on ${name}`;
  const second = await start(context, dir, name);
  if (second.ready) {
    out.findings.push({
      subject,
      message: `served while process ${first.pid} serves ${STATE_NAME}: two writers of one file`,
    });
    await second.server.kill();
    return;
  }
  const problems = refusalProblems(second, name, context, holders);
  for (const message of problems) out.findings.push({ subject, message });
  if (problems.length === 0) out.held += 1;
}

/** What another program does to the file under a running server. */
const TAKINGS: ReadonlyArray<{ name: string; act(dir: string): void }> = [
  { name: "deleted", act: (dir) => rmSync(join(dir, STATE_NAME)) },
  { name: "renamed away", act: (dir) => renameSync(join(dir, STATE_NAME), join(dir, "moved.db")) },
  {
    name: "replaced by a copy",
    act: (dir) => {
      copyFileSync(join(dir, STATE_NAME), join(dir, "copy.db"));
      renameSync(join(dir, "copy.db"), join(dir, STATE_NAME));
    },
  },
];

/** The file taken away under a running server: what it acknowledges after, the next start must know. */
export async function takenAway(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  for (const taking of TAKINGS) {
    const scenario = `state file ${taking.name} while served`;
    const dir = folder(context, `taken-${taking.name.replaceAll(" ", "-")}`);
    await judged(
      context,
      scenario,
      async () => {
        const server = await firstStart(context, dir);
        const desk = await deskAt(context, server);
        await placeKept(desk, "custody-before");
        if (!madeFile(dir, scenario, out)) return;
        taking.act(dir);
        const after = await place(desk, "custody-after");
        if ("refused" in after) out.notes.push(`${scenario}: the next order was refused (${after.refused})`);
        await server.kill();
        const again = await start(context, dir, STATE_NAME);
        if (!again.ready) {
          const why = `the next start on ${STATE_NAME} does not serve (${endingText(again.ending, context)})`;
          if ("orderId" in after)
            out.findings.push({
              subject: `${scenario}: order ${after.orderId} (clientOrderId ${after.clientOrderId})`,
              message: `acknowledged after the file was ${taking.name}, and ${why}: an acknowledged order the path cannot give back`,
            });
          else out.notes.push(`${scenario}: ${why}; nothing acknowledged was at stake`);
          return;
        }
        await judgeKept(await deskAt(context, again.server), [after], scenario, out);
      },
      out,
    );
  }
  return out;
}

/** The order the damaged files are made from (a far LIMIT BUY, so its side is BUY). */
const WHOLE_ORDER = "custody-whole";

/**
 * What a damage did: the words a refusal must quote (what arrived, what a server takes), or why
 * it could not be done to this server's file.
 */
type Damaged = { quote: { arrived: string; expected: string } | undefined } | { notDone: string };

/** How a state file is damaged before a start. */
const DAMAGES: ReadonlyArray<{ name: string; slug: string; fromWhole: boolean; act(file: string): Damaged }> =
  [
    {
      name: "cut to half its size",
      slug: "cut",
      fromWhole: true,
      act: (file) => {
        truncateSync(file, Math.floor(statSync(file).size / 2));
        return { quote: undefined };
      },
    },
    {
      name: "a 4 KiB page in the middle zeroed",
      slug: "zeroed-page",
      fromWhole: true,
      act: (file) => {
        const size = statSync(file).size;
        const at = Math.max(0, Math.floor(size / 2 / 4096) * 4096);
        overwrite(file, at, Buffer.alloc(Math.min(4096, size - at)));
        return { quote: undefined };
      },
    },
    {
      name: "text in its place",
      slug: "text",
      fromWhole: false,
      act: (file) => {
        writeFileSync(file, "this is not the server's state file\n");
        return { quote: undefined };
      },
    },
    {
      name: `its order's side altered in place (${WHOLE_ORDER}: BUY → BUZ)`,
      // The folder's name must not hold the words the refusal is searched for.
      slug: "altered-value",
      fromWhole: true,
      act: (file) => alteredAfter(file, WHOLE_ORDER, "BUY", "BUZ"),
    },
  ];

/** How far after an order's client order id its side is looked for in the file. */
const ALTER_REACH = 256;

/**
 * The first `from` within ALTER_REACH bytes after `anchor` in the file overwritten with `to`, of
 * the same length: a value the server never writes, that no structure of a file format notices.
 */
function alteredAfter(file: string, anchor: string, from: string, to: string): Damaged {
  const bytes = readFileSync(file);
  const at = bytes.indexOf(anchor, 0, "latin1");
  const where = at < 0 ? -1 : bytes.subarray(at, at + anchor.length + ALTER_REACH).indexOf(from, 0, "latin1");
  if (where < 0)
    return {
      notDone: `${STATE_NAME} does not hold ${anchor} followed by ${from} as text (the order is kept in another form, or in another file)`,
    };
  overwrite(file, at + where, Buffer.from(to, "latin1"));
  return { quote: { arrived: to, expected: from } };
}

function overwrite(file: string, at: number, bytes: Buffer): void {
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of every file in `dir`, by name, but SQLite's shared-memory index (`-shm`), which
 * SQLite rebuilds from the log whenever a connection opens the file: it holds nothing of its own.
 */
function fingerprints(dir: string): Map<string, string> {
  const prints = new Map<string, string>();
  for (const name of readdirSync(dir).filter((n) => !n.endsWith("-shm"))) {
    const path = join(dir, name);
    if (statSync(path).isFile())
      prints.set(name, createHash("sha256").update(readFileSync(path)).digest("hex"));
  }
  return prints;
}

/** How the server left its file before it is damaged: closed, or killed with its log beside it. */
const LEFT: ReadonlyArray<{
  name: string;
  end(server: OperatedServer, context: CustodyContext): Promise<unknown>;
}> = [
  { name: "after a stop", end: (server, context) => server.stop(context.stopTimeoutMs) },
  { name: "after kill -9", end: (server) => server.kill() },
];

/**
 * A damaged file at start: refused, naming the path, and nothing of it changed or removed; the
 * file as a stop left it and as kill -9 left it (its log beside it, which a refusal must not apply).
 */
export async function damagedAtStart(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  for (const left of LEFT) await damagedAfter(context, left, out);
  return out;
}

async function damagedAfter(
  context: CustodyContext,
  left: (typeof LEFT)[number],
  out: Judgement,
): Promise<void> {
  const whole = folder(context, `damaged-whole-${left.name.replace(/\W+/g, "-")}`);
  const findings = out.findings.length;
  await judged(
    context,
    `damaged files ${left.name}`,
    async () => {
      const server = await firstStart(context, whole);
      await placeKept(await deskAt(context, server), WHOLE_ORDER);
      await left.end(server, context);
    },
    out,
  );
  if (out.findings.length > findings) return;
  const made = madeFile(whole, `damaged files ${left.name}: those made from the server's own file`, out);
  for (const damage of DAMAGES.filter((d) => made || !d.fromWhole)) {
    const subject = `a state file ${damage.name}, ${left.name}`;
    const dir = folder(context, `damaged-${left.name}-${damage.slug}`.replace(/\W+/g, "-"));
    for (const name of readdirSync(whole)) copyFileSync(join(whole, name), join(dir, name));
    const done = damage.act(join(dir, STATE_NAME));
    if ("notDone" in done) {
      out.notes.push(`${subject}: not tried, ${done.notDone}`);
      continue;
    }
    // By its name in the folder and by its absolute path: the refusal names the path as given.
    for (const name of [STATE_NAME, join(dir, STATE_NAME)])
      await judged(
        context,
        `${subject}, started as ${name}`,
        () => judgeRefusedStart(context, dir, name, done.quote, `${subject}, started as ${name}`, out),
        out,
      );
  }
}

/**
 * A start on the damaged file `name` in `dir`: refused, naming the path, quoting what arrived
 * and what a server takes where the damage altered a value, every file of `dir` as it was. A
 * server that serves its order unaltered read another copy of it (a log beside the file), and is
 * not judged.
 */
async function judgeRefusedStart(
  context: CustodyContext,
  dir: string,
  name: string,
  quote: { arrived: string; expected: string } | undefined,
  subject: string,
  out: Judgement,
): Promise<void> {
  const before = fingerprints(dir);
  const started = await start(context, dir, name);
  if (started.ready) {
    const order = quote && (await lookUpOrder(await deskAt(context, started.server), WHOLE_ORDER));
    if (quote && order?.side === quote.expected) {
      out.notes.push(
        `${subject}: served ${WHOLE_ORDER} as it was placed; the altered copy is not the one it reads`,
      );
      return;
    }
    out.findings.push({
      subject,
      message: `served${order ? ` (${WHOLE_ORDER} with side ${String(order.side)})` : ""}: a damaged state file must be refused at start, not taken for the exchange's`,
    });
    return;
  }
  // The folder's path is left out of what is searched for the quoted words: a user's may hold them.
  const said = started.output.replaceAll(realpathSync(dir), "").replaceAll(dir, "");
  const problems = [...refusalProblems(started, name, context), ...quoteProblems(said, quote)];
  const after = fingerprints(dir);
  for (const [name, print] of before)
    if (after.get(name) !== print)
      problems.push(
        `${name} was ${after.has(name) ? "changed" : "removed"} by the refused start: a refusal loses nothing`,
      );
  for (const message of problems) out.findings.push({ subject, message });
  if (problems.length === 0) out.held += 1;
}

/** How many orders a full disk may take before the server must refuse one. */
const FULL_DISK_TRIES = 200;

/** A full disk: refused once nothing can be written, nothing acknowledged lost, orders taken again with room. */
export async function fullDisk(context: CustodyContext): Promise<Judgement> {
  const scenario = "a full disk";
  const dir = folder(context, "full-disk");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    const placed: Placed[] = [];
    placed.push(await placeKept(desk, "custody-full-0"));
    const cannot = await limitFileSizes(server, 0);
    if (cannot) {
      out.notes.push(`${scenario}: not judged, the file-size limit could not be set (${cannot})`);
      return;
    }
    const refused = () => placed.some((p) => "refused" in p);
    // Each acknowledged order is cancelled at once, so that no limit on open orders refuses the next.
    for (let i = 1; i <= FULL_DISK_TRIES && !refused(); i += 1) {
      const order = await place(desk, `custody-full-${i}`);
      placed.push(order);
      if ("orderId" in order) await cancel(desk, order.orderId);
    }
    await limitFileSizes(server, undefined);
    const acknowledged = placed.filter((p) => "orderId" in p).length - 1;
    if (!refused()) {
      out.notes.push(
        `${scenario}: ${acknowledged} orders acknowledged with no room to grow any file; the refusal not judged`,
      );
    } else {
      out.notes.push(
        `${scenario}: ${acknowledged} order(s) acknowledged with no room to grow a file, then one refused`,
      );
      const recovered = await takenAgain(context, desk, placed);
      // The running server too: what it refused it must not hold in memory, what it took it must.
      if (recovered) {
        out.held += 1;
        await judgeKept(
          desk,
          placed,
          scenario,
          out,
          "on the server that refused them, once it took orders again",
        );
        await reuseRefusedId(desk, placed, scenario, out);
      } else
        out.findings.push({
          subject: scenario,
          message: `orders still refused ${context.startTimeoutMs} ms after the disk had room again (the last: ${(placed.at(-1) as { refused?: string }).refused ?? "?"})`,
        });
    }
    await judgeKept(await afterKill(context, server, dir), placed, scenario, out);
  });
}

/**
 * A disk full from the first start on a new path (no file may grow at all): the start is refused,
 * naming the path, and the next start with room serves and keeps; or it serves, and what it
 * acknowledged with no room is there once there is room, after kill -9 and a start. The signal
 * such a limit sends a process that writes past it (SIGXFSZ; a real full disk sends none) ending
 * the start is said, not judged.
 */
export async function fullDiskAtStart(context: CustodyContext): Promise<Judgement> {
  const scenario = "a full disk at the first start";
  const dir = folder(context, "full-disk-at-start");
  return judged(context, scenario, async (out) => {
    const first = await start(context, dir, STATE_NAME, { noRoom: true });
    const kept: Placed[] = [];
    if (first.ready) {
      const order = await place(await deskAt(context, first.server), "custody-no-room");
      kept.push(order);
      await limitFileSizes(first.server, undefined);
      out.notes.push(
        `${scenario}: served with no room to write; the order then ${"orderId" in order ? "acknowledged" : `refused (${order.refused})`}`,
      );
      await judgeKept(await afterKill(context, first.server, dir), kept, scenario, out);
      return;
    }
    if (first.ending?.signal === "SIGXFSZ")
      out.notes.push(
        `${scenario}: ended by SIGXFSZ, the limit's signal (a real full disk sends none): the refusal not judged`,
      );
    else {
      const problems = refusalProblems(first, STATE_NAME, context);
      for (const message of problems) out.findings.push({ subject: scenario, message });
      if (problems.length === 0) out.held += 1;
    }
    const again = await serving(
      context,
      dir,
      STATE_NAME,
      "with room again, after a start refused for want of it",
    );
    const desk = await deskAt(context, again);
    kept.push(await placeKept(desk, "custody-room-at-last"));
    await judgeKept(await afterKill(context, again, dir), kept, scenario, out);
  });
}

/** The limit on every process of the server's group: the server may be a shell's child. */
async function limitFileSizes(
  server: OperatedServer,
  bytes: number | undefined,
): Promise<string | undefined> {
  const failures = await Promise.all(server.pids().map((pid) => limitFileSize(pid, bytes)));
  return failures.find((failure) => failure !== undefined);
}

/**
 * The client order id of an order refused for want of room names no order, so a new order may
 * have it once orders are taken again; the new order takes the refused one's place in `placed`.
 */
async function reuseRefusedId(desk: Desk, placed: Placed[], scenario: string, out: Judgement): Promise<void> {
  const refused = placed.findIndex((p) => "refused" in p);
  if (refused < 0) return;
  const { clientOrderId } = placed[refused]!;
  const again = await place(desk, clientOrderId);
  if ("refused" in again) {
    out.findings.push({
      subject: scenario,
      message: `clientOrderId ${clientOrderId}, of an order refused while the disk was full, is not free once orders are taken again: a new order with it is refused (${again.refused})`,
    });
    return;
  }
  out.held += 1;
  placed.splice(refused, 1, again);
  await cancel(desk, again.orderId);
}

/** Orders placed until one is acknowledged, within the start timeout; each recorded in `placed`. */
async function takenAgain(context: CustodyContext, desk: Desk, placed: Placed[]): Promise<boolean> {
  const deadline = Date.now() + context.startTimeoutMs;
  for (let i = 0; Date.now() < deadline; i += 1) {
    const order = await place(desk, `custody-room-${i}`);
    placed.push(order);
    if ("orderId" in order) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** Clients placing orders at once while the server is stopped. */
const STOP_CLIENTS = 4;

/** Orders acknowledged before the stop is asked for. */
const STOP_AFTER = 20;

/**
 * A stop (SIGTERM) while orders arrive: the server ends within the stop timeout (it is not
 * killed), and at the next start every order it acknowledged is there and none it refused with an
 * answer; an order sent as it stopped and never answered may be either.
 */
export async function gracefulStop(context: CustodyContext): Promise<Judgement> {
  const scenario = "a stop (SIGTERM) while orders arrive";
  const dir = folder(context, "graceful-stop");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    const placed: Placed[] = [];
    let acknowledged = 0;
    let enough: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      enough = resolve;
    });
    // Each client places orders one after another until one is refused or goes unanswered: the stop.
    const client = async (n: number) => {
      for (let i = 0; i < 1000; i += 1) {
        const order = await place(desk, `custody-stop-${n}-${i}`);
        placed.push(order);
        if ("refused" in order) return;
        acknowledged += 1;
        if (acknowledged >= STOP_AFTER) enough();
      }
    };
    const clients = Array.from({ length: STOP_CLIENTS }, (_, n) => client(n));
    await Promise.race([ready, Promise.all(clients)]);
    const { forced } = await server.stop(context.stopTimeoutMs);
    await Promise.all(clients);
    if (forced)
      out.findings.push({
        subject: scenario,
        message: `still running ${context.stopTimeoutMs} ms after SIGTERM: a stop must end the server (it was killed)`,
      });
    else out.held += 1;
    const again = await serving(context, dir, STATE_NAME, "again after a stop with its own state file");
    await judgeKept(await deskAt(context, again), placed, scenario, out);
  });
}

/** Orders in flight at once while a long history is made. */
const HISTORY_FLIGHT = 10;

/** Orders placed between two cancel_all_orders, below any sensible limit on open orders. */
const HISTORY_OPEN = 100;

/**
 * A long history: `context.history` orders on one symbol (each cancelled soon after, in bunches),
 * then every one is found by its client order id, on the server that took them and at the next
 * start after kill -9; the first's id, its order closed, is given to a new order, which is then
 * what the id finds. A cache or an index of recent client order ids that loses some shows here.
 */
export async function longHistory(context: CustodyContext): Promise<Judgement> {
  const scenario = `a history of ${context.history} orders`;
  if (context.history < 2)
    return {
      ...judgement(),
      notes: ["a long history: not tried (give --history N, N orders on one symbol)"],
    };
  const dir = folder(context, "long-history");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    const ids = Array.from({ length: context.history }, (_, i) => `custody-history-${i}`);
    const all: Placed[] = [];
    const chosen = new Map<number, Placed>();
    const picks = new Set([0, Math.floor(ids.length / 2), ids.length - 1]);
    for (let from = 0; from < ids.length; from += HISTORY_OPEN) {
      const bunch = ids.slice(from, from + HISTORY_OPEN);
      for (let at = 0; at < bunch.length; at += HISTORY_FLIGHT) {
        const flight = bunch.slice(at, at + HISTORY_FLIGHT);
        const placed = await Promise.all(flight.map((id) => placeKept(desk, id)));
        all.push(...placed);
        placed.forEach((order, i) => {
          if (picks.has(from + at + i)) chosen.set(from + at + i, order);
        });
      }
      await cancelAll(desk);
    }
    const kept = [...chosen.values()];
    await judgeFound(desk, all, scenario, out, "on the server that took them");
    await judgeListed(desk, all, scenario, out, "on the server that took them");
    const reused = await placeKept(desk, kept[0]!.clientOrderId);
    kept[0] = reused;
    all[0] = reused;
    const when = "once the first order's client order id was given to a new order";
    await judgeFound(desk, kept, scenario, out, when);
    await judgeListed(desk, all, scenario, out, when);
    const again = await afterKill(context, server, dir);
    await judgeFound(again, all, scenario, out, "at the next start on the same state file");
    await judgeListed(again, all, scenario, out, "at the next start on the same state file");
  });
}

/**
 * When a first start on a new path is killed: at once, as it makes its first file, as the state
 * file appears (where a file made in place is still empty), and at moments after its launch.
 */
const KILL_POINTS: ReadonlyArray<{ name: string; reached(dir: string, sinceMs: number): boolean }> = [
  { name: "at once", reached: () => true },
  { name: "as the first file appears in its folder", reached: (dir) => readdirSync(dir).length > 0 },
  { name: `as ${STATE_NAME} appears`, reached: (dir) => existsSync(join(dir, STATE_NAME)) },
  ...[150, 400, 1000, 2500].map((ms) => ({
    name: `${ms} ms after its launch`,
    reached: (_: string, since: number) => since >= ms,
  })),
];

/**
 * kill -9 during a first start, from its launch until it serves: the path stays usable. The next
 * start serves (a file left half made, that every start then refuses, strands the operator after
 * a crash while provisioning) and keeps what it acknowledges.
 */
export async function killedStarting(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  for (const point of KILL_POINTS) {
    const subject = `kill -9 ${point.name}, in a first start`;
    const dir = folder(context, `killed-starting-${point.name.replace(/\W+/g, "-")}`);
    let served = false;
    await judged(
      context,
      subject,
      async () => {
        const launched = Date.now();
        const first = await start(context, dir, STATE_NAME, {
          onSpawn: (server) => void killWhen(server, () => point.reached(dir, Date.now() - launched)),
        });
        served = first.ready;
        await first.server.kill();
        const again = await start(context, dir, STATE_NAME);
        if (!again.ready) {
          out.findings.push({
            subject,
            message: `the next start on ${STATE_NAME} does not serve (${endingText(again.ending, context)}; the folder holds ${readdirSync(dir).join(", ") || "nothing"}): ${lastLines(again.output)}; a start killed before it served must leave the path usable`,
          });
          return;
        }
        const desk = await deskAt(context, again.server);
        const kept = [await placeKept(desk, "custody-after-killed-start")];
        await judgeKept(await afterKill(context, again.server, dir), kept, subject, out);
      },
      out,
    );
    // A later point kills a server that served already: what the other scenarios try.
    if (served) break;
  }
  return out;
}

/** kill -9 as soon as `reached` holds (looked at every few milliseconds), unless the server ended. */
async function killWhen(server: OperatedServer, reached: () => boolean): Promise<void> {
  let ended = false;
  void server.ended.then(() => {
    ended = true;
  });
  while (!ended) {
    if (reached()) {
      await server.kill();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Orders placed and cancelled before the open files are first counted: what a server opens once. */
const WARM_ROUNDS = 20;

/** Orders placed (each on a connection of its own, closed after) and cancelled between the counts. */
const WORK_ROUNDS = 200;

/** Files a server may come to hold for good while it works (a log, an index, a pool's threads). */
const OPEN_FILES_SLACK = 16;

/**
 * Work that ended leaves nothing open: after WORK_ROUNDS orders, each placed on a connection of
 * its own that is then closed, and cancelled, the server's processes hold no more open files
 * (descriptors) than before, but a few. One left open with each order or connection stops the
 * server at the system's limit, after days of work.
 */
export async function openFiles(context: CustodyContext): Promise<Judgement> {
  const scenario = "open files after work that ended";
  const dir = folder(context, "open-files");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    await work(desk, "warm", WARM_ROUNDS);
    const before = openFileCount(server.pids());
    if (before === undefined) {
      out.notes.push(`${scenario}: not tried, /proc/PID/fd cannot be read here`);
      return;
    }
    await work(desk, "work", WORK_ROUNDS);
    const bound = before + OPEN_FILES_SLACK;
    const after = await settledCount(
      () => openFileCount(server.pids()),
      bound,
      () => pingAt(desk),
    );
    if (after !== undefined && after > bound)
      out.findings.push({
        subject: scenario,
        message: `its processes hold ${after} open files (descriptors) after ${WORK_ROUNDS} orders were placed, each on a connection that was then closed, and cancelled, against ${before} before them: something is left open with each order or connection, and a server that leaks so stops at the system's limit`,
      });
    else {
      out.held += 1;
      out.notes.push(`${scenario}: ${before} open before ${WORK_ROUNDS} orders, ${after ?? "?"} after`);
    }
  });
}

async function work(desk: Desk, name: string, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    const order = await place(desk, `custody-${name}-${i}`, true);
    if ("refused" in order)
      throw new CustodyStop(`a far LIMIT BUY on a healthy server was refused: ${order.refused}`);
    await cancel(desk, order.orderId);
  }
}

/** Answers the server gives without the count falling before it is taken as final. */
const STILL_AFTER = 3;

/**
 * The count once it is at most `bound`, or once it has not fallen across STILL_AFTER answers of
 * the server (connections closed by the client are let go as the server reads on: no clock).
 */
async function settledCount(
  count: () => number | undefined,
  bound: number,
  ping: () => Promise<void>,
): Promise<number | undefined> {
  let last = count();
  for (let still = 0; last !== undefined && last > bound && still < STILL_AFTER; ) {
    await ping();
    const now = count();
    still = now !== undefined && now < last ? 0 : still + 1;
    last = now;
  }
  return last;
}

/** Every scenario, in the order a report lists them. */
export const SCENARIOS: ReadonlyArray<{ name: string; run(context: CustodyContext): Promise<Judgement> }> = [
  { name: "one writer", run: oneWriter },
  { name: "taken away", run: takenAway },
  { name: "damaged at start", run: damagedAtStart },
  { name: "killed while starting", run: killedStarting },
  { name: "full disk", run: fullDisk },
  { name: "full disk at start", run: fullDiskAtStart },
  { name: "graceful stop", run: gracefulStop },
  { name: "open files", run: openFiles },
  { name: "long history", run: longHistory },
];
