/**
 * What other programs and machines do to a server's state file (run/custody.ts): a second server
 * on it by other names, the file taken away while served, damaged before a start (cut, zeroed,
 * replaced, a value altered in place), and kill -9 during a first start.
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
  start,
} from "./custody-context.js";
import { afterKill, deskAt, judgeKept, lookUpOrder, place, placeKept } from "./custody-orders.js";
import type { OperatedServer } from "./operated-server.js";
import type { Judgement } from "./persistence.js";

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
