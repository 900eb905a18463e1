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
 * - a damaged file at start (cut short, a page zeroed, text in its place): refused, naming the
 *   path, and every file left as it was;
 * - a full disk (a file-size limit set on the running server with `prlimit`): orders refused
 *   once nothing more can be written, every acknowledged one kept and no refused one, and orders
 *   taken again once there is room.
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
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { CHECK_NAMES } from "../checks/index.js";
import type { ContractModel } from "../core/operations.js";
import type { Credentials } from "../http/request.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { type FarBuy, farBuyOrder, planFarBuy } from "../kit/market.js";
import { judgeNewestPage, newestPageLimit, newestPageOf } from "../kit/newest-page.js";
import { probe } from "../phases/probe.js";
import { Session } from "../session/session.js";
import { Recorder } from "../session/verdicts.js";
import { quietCall } from "./memory.js";
import {
  type Ending,
  launch,
  limitFileSize,
  type OperatedServer,
  programOf,
  type Start,
} from "./operated-server.js";
import type { Judgement } from "./persistence.js";

/** The state file's name in each scenario's folder. */
export const STATE_NAME = "state.db";

export interface CustodyContext {
  command: string;
  model: ContractModel;
  credentials: Credentials;
  timeoutMs: number;
  startTimeoutMs: number;
  /** How long a server may take to end after SIGTERM. */
  stopTimeoutMs: number;
  /** Orders of the long history (0: not tried). */
  history: number;
  /** A folder of the tester's; each scenario works in a folder of its own inside it. */
  root: string;
  /** Servers still running, so that a scenario that throws leaves none behind. */
  running: Set<OperatedServer>;
}

/** The scenario cannot go on: the server would not serve, or take an order, where it should. */
export class CustodyStop extends Error {}

/** The command does not give a serving server on a new state file: nothing can be judged. */
export class CannotRun extends Error {}

/**
 * An order as the tester placed it: acknowledged with its orderId, or refused with the answer
 * (`unanswered` when no answer came: its fate is unknown, and never judged).
 */
type Placed = { clientOrderId: string } & ({ orderId: number } | { refused: string; unanswered?: true });

interface Desk {
  session: Session;
  far: FarBuy;
}

function judgement(): Judgement {
  return { findings: [], held: 0, notes: [] };
}

function folder(context: CustodyContext, name: string): string {
  const dir = join(context.root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function start(context: CustodyContext, cwd: string, state: string): Promise<Start> {
  const readyPath = context.model.operation("ping")?.path ?? "/";
  const started = await launch({
    command: context.command,
    state,
    cwd,
    readyPath,
    startTimeoutMs: context.startTimeoutMs,
  });
  context.running.add(started.server);
  void started.server.ended.then(() => context.running.delete(started.server));
  return started;
}

/** A start that must serve: the state file is the server's own, untouched by anyone else. */
async function serving(
  context: CustodyContext,
  cwd: string,
  state: string,
  why: string,
): Promise<OperatedServer> {
  const started = await start(context, cwd, state);
  if (started.ready) return started.server;
  throw new CustodyStop(
    `the server did not serve ${why} (${endingText(started.ending, context)}): ${lastLines(started.output)}`,
  );
}

/** The first start of a scenario, on a new state file: where it does not serve, nothing can be judged. */
async function firstStart(context: CustodyContext, cwd: string): Promise<OperatedServer> {
  const started = await start(context, cwd, STATE_NAME);
  if (started.ready) return started.server;
  throw new CannotRun(
    `the command did not give a server that answers ping on a new state file (${endingText(started.ending, context)}): ${lastLines(started.output)}`,
  );
}

function endingText(ending: Ending | undefined, context: CustodyContext): string {
  if (ending === undefined) return `no answer to ping within ${context.startTimeoutMs} ms`;
  return ending.signal ? `ended by ${ending.signal}` : `exit code ${ending.code}`;
}

function lastLines(output: string): string {
  const text = output.trim().split("\n").slice(-3).join(" / ");
  return text === "" ? "it printed nothing" : text.length > 400 ? `…${text.slice(-400)}` : text;
}

async function deskAt(context: CustodyContext, server: OperatedServer): Promise<Desk> {
  const session = new Session({
    model: context.model,
    baseUrl: server.url,
    headers: {},
    credentials: context.credentials,
    timeoutMs: context.timeoutMs,
    maxRequests: Number.MAX_SAFE_INTEGER,
    recorder: new Recorder([], [], CHECK_NAMES),
  });
  const found = await probe(session, server.url);
  for (const rules of found.market.symbols) {
    const reference = found.references.get(rules.symbol);
    const far = reference === undefined ? undefined : planFarBuy(rules, reference);
    if (far && !("reason" in far)) return { session, far };
  }
  throw new CustodyStop(
    "no symbol of exchange_info takes a far LIMIT BUY, so no order can be placed to keep",
  );
}

async function place(desk: Desk, clientOrderId: string): Promise<Placed> {
  const op = desk.session.model.operation("new_order")!;
  const answer = await quietCall(
    desk.session,
    op,
    { ...farBuyOrder(desk.far), newClientOrderId: clientOrderId },
    "custody: an order to keep",
  );
  const orderId = bodyObject(answer)?.orderId;
  if (ok(answer) && typeof orderId === "number") return { clientOrderId, orderId };
  return {
    clientOrderId,
    refused: describeAnswer(answer),
    ...(answer.response ? {} : { unanswered: true as const }),
  };
}

/** An order the server must take: it is healthy and nothing was done to its file yet. */
async function placeKept(
  desk: Desk,
  clientOrderId: string,
): Promise<{ clientOrderId: string; orderId: number }> {
  const placed = await place(desk, clientOrderId);
  if ("refused" in placed)
    throw new CustodyStop(`a far LIMIT BUY on a healthy server was refused: ${placed.refused}`);
  return placed;
}

/** A cancel whose outcome does not matter: a full disk may refuse it, and the order then rests. */
async function cancel(desk: Desk, orderId: number): Promise<void> {
  const op = desk.session.model.operation("cancel_order")!;
  await quietCall(desk.session, op, { symbol: desk.far.symbol, orderId }, "custody: cancel an order kept");
}

/** The orderId the server finds for the client order id, or undefined where it knows none. */
async function lookUp(desk: Desk, clientOrderId: string): Promise<number | undefined> {
  const op = desk.session.model.operation("query_order")!;
  const answer = await quietCall(
    desk.session,
    op,
    { symbol: desk.far.symbol, origClientOrderId: clientOrderId },
    "custody: look the order up",
  );
  const orderId = bodyObject(answer)?.orderId;
  return ok(answer) && typeof orderId === "number" ? orderId : undefined;
}

/**
 * After a restart: every acknowledged order found under its client order id with its orderId,
 * and no refused one (an order the client was told failed must not appear later).
 */
async function judgeKept(
  desk: Desk,
  placed: readonly Placed[],
  scenario: string,
  out: Judgement,
  when = "at the next start on the same state file",
): Promise<void> {
  const lost: string[] = [];
  const kept: string[] = [];
  for (const order of placed) {
    if ("unanswered" in order) continue;
    const found = await lookUp(desk, order.clientOrderId);
    if ("orderId" in order) {
      if (found === order.orderId) out.held += 1;
      else
        lost.push(
          `order ${order.orderId} (clientOrderId ${order.clientOrderId}) ${found === undefined ? "unknown" : `is order ${found}`}`,
        );
    } else if (found === undefined) out.held += 1;
    else kept.push(`clientOrderId ${order.clientOrderId} (refused: ${order.refused}) is order ${found}`);
  }
  await judgeListed(desk, placed, scenario, out, when);
  if (lost.length > 0)
    out.findings.push({
      subject: scenario,
      message: `${lost.length} acknowledged order(s) not there ${when}: ${listed(lost)}`,
    });
  if (kept.length > 0)
    out.findings.push({
      subject: scenario,
      message: `${kept.length} order(s) the client was told failed are there ${when}: ${listed(kept)}`,
    });
}

/**
 * The account's newest page of orders (all_orders at its largest limit) holds every acknowledged
 * order, each once and in the stated order (kit/newest-page.ts), and no order the client was told
 * failed, by its client order id.
 */
async function judgeListed(
  desk: Desk,
  placed: readonly Placed[],
  scenario: string,
  out: Judgement,
  when: string,
): Promise<void> {
  const op = desk.session.model.operation("all_orders");
  const limit = op && newestPageLimit(op);
  if (!op || limit === undefined) return;
  const { symbol } = desk.far;
  const answer = await quietCall(desk.session, op, { symbol, limit }, "custody: the account's orders");
  const json = ok(answer) ? answer.response?.json : undefined;
  const page = newestPageOf(op, symbol, limit, json);
  if (!page) {
    out.findings.push({
      subject: `${scenario}: all_orders`,
      message: `${when}, not a list of orders: ${describeAnswer(answer)}`,
    });
    return;
  }
  const acknowledged = placed.flatMap((p) => ("orderId" in p ? [p.orderId] : []));
  const problems = judgeNewestPage(page, acknowledged, "acknowledged").map((f) => ({
    subject: `${scenario}: ${f.subject}`,
    message: `${when}: ${f.message}`,
  }));
  const refused = new Set(placed.flatMap((p) => ("refused" in p && !p.unanswered ? [p.clientOrderId] : [])));
  const listedRefused = (json as Array<Record<string, unknown>>).filter((o) =>
    refused.has(String(o.clientOrderId)),
  );
  if (listedRefused.length > 0)
    problems.push({
      subject: `${scenario}: all_orders`,
      message: `${when}, lists order(s) the client was told failed: ${listed(listedRefused.map((o) => `order ${String(o.orderId)} (clientOrderId ${String(o.clientOrderId)})`))}`,
    });
  out.findings.push(...problems);
  if (problems.length === 0) out.held += 1;
}

/** The first three of a list, and how many more. */
function listed(items: readonly string[]): string {
  const shown = items.slice(0, 3).join("; ");
  return items.length > 3 ? `${shown}; and ${items.length - 3} more` : shown;
}

/** Whether the refusal of a start names `text`, as a whole word where it is a number. */
function names(output: string, text: string): boolean {
  return /^\d+$/.test(text) ? new RegExp(`(^|\\D)${text}(\\D|$)`).test(output) : output.includes(text);
}

async function stopAll(context: CustodyContext): Promise<void> {
  await Promise.all([...context.running].map((server) => server.kill()));
}

/** Whether the server made a file at the path; where it did not, what needs one is not tried, and said. */
function madeFile(dir: string, what: string, out: Judgement): boolean {
  if (existsSync(join(dir, STATE_NAME))) return true;
  out.notes.push(`${what}: not tried, the server made no file at ${STATE_NAME}`);
  return false;
}

/** One writer, whatever name opens the file. */
export async function oneWriter(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  const dir = folder(context, "one-writer");
  try {
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
    await first.kill();
    const again = await serving(context, dir, STATE_NAME, "again after kill -9 with its own state file");
    await judgeKept(await deskAt(context, again), kept, "one writer", out);
  } catch (error) {
    if (!(error instanceof CustodyStop)) throw error;
    out.findings.push({ subject: "one writer", message: error.message });
  } finally {
    await stopAll(context);
  }
  return out;
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

/**
 * What is wrong with a start the server should have refused: it must end, non-zero, naming the
 * path it was given and, where `holders` lists them, one of the processes that hold the file, by
 * its pid and its program (as `ps` shows them: whom to stop).
 */
export function refusalProblems(
  started: Extract<Start, { ready: false }>,
  path: string,
  context: CustodyContext,
  holders: readonly number[] = [],
): string[] {
  if (started.ending === undefined)
    return [`neither served nor ended within ${context.startTimeoutMs} ms: a refusal must end the start`];
  if (started.ending.code === 0 || started.ending.code === null)
    return [
      `ended with ${endingText(started.ending, context)} without serving: a refusal is a non-zero exit code`,
    ];
  const problems: string[] = [];
  const said = started.output;
  if (!names(said, path))
    problems.push(`its refusal does not name the path it was given (${path}): ${lastLines(said)}`);
  const holder = holders.find((pid) => names(said, String(pid)));
  if (holders.length > 0 && holder === undefined)
    problems.push(
      `its refusal does not name the process that holds the file (pid ${holders.join(" or ")}): ${lastLines(said)}`,
    );
  const program = holder === undefined ? undefined : programOf(holder);
  if (program !== undefined && !said.includes(program))
    problems.push(`its refusal names pid ${holder} but not its program (${program}): ${lastLines(said)}`);
  return problems;
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
    try {
      const server = await firstStart(context, dir);
      const desk = await deskAt(context, server);
      await placeKept(desk, "custody-before");
      if (!madeFile(dir, scenario, out)) continue;
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
        continue;
      }
      await judgeKept(await deskAt(context, again.server), [after], scenario, out);
    } catch (error) {
      if (!(error instanceof CustodyStop)) throw error;
      out.findings.push({ subject: scenario, message: error.message });
    } finally {
      await stopAll(context);
    }
  }
  return out;
}

/** How a state file is damaged before a start. */
const DAMAGES: ReadonlyArray<{ name: string; fromWhole: boolean; act(file: string): void }> = [
  {
    name: "cut to half its size",
    fromWhole: true,
    act: (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
  },
  {
    name: "a 4 KiB page in the middle zeroed",
    fromWhole: true,
    act: (file) => {
      const size = statSync(file).size;
      const at = Math.max(0, Math.floor(size / 2 / 4096) * 4096);
      const fd = openSync(file, "r+");
      try {
        writeSync(fd, Buffer.alloc(Math.min(4096, size - at)), 0, Math.min(4096, size - at), at);
      } finally {
        closeSync(fd);
      }
    },
  },
  {
    name: "text in its place",
    fromWhole: false,
    act: (file) => writeFileSync(file, "this is not the server's state file\n"),
  },
];

function fingerprints(dir: string): Map<string, string> {
  const prints = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isFile())
      prints.set(name, createHash("sha256").update(readFileSync(path)).digest("hex"));
  }
  return prints;
}

/** A damaged file at start: refused, naming the path, and nothing of it changed or removed. */
export async function damagedAtStart(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  const whole = folder(context, "damaged-whole");
  try {
    const server = await firstStart(context, whole);
    await placeKept(await deskAt(context, server), "custody-whole");
    await server.stop(context.stopTimeoutMs);
  } catch (error) {
    if (!(error instanceof CustodyStop)) throw error;
    out.findings.push({ subject: "damaged files", message: error.message });
    await stopAll(context);
    return out;
  }
  const made = madeFile(whole, "damaged files: those made from the server's own file", out);
  for (const damage of DAMAGES.filter((d) => made || !d.fromWhole)) {
    const subject = `a state file ${damage.name}`;
    const dir = folder(context, `damaged-${damage.name.replace(/\W+/g, "-")}`);
    for (const name of readdirSync(whole)) copyFileSync(join(whole, name), join(dir, name));
    damage.act(join(dir, STATE_NAME));
    const before = fingerprints(dir);
    try {
      const started = await start(context, dir, STATE_NAME);
      if (started.ready) {
        out.findings.push({
          subject,
          message: "served: a damaged state file must be refused at start, not taken for the exchange's",
        });
        continue;
      }
      const problems = refusalProblems(started, STATE_NAME, context);
      const after = fingerprints(dir);
      for (const [name, print] of before)
        if (after.get(name) !== print)
          problems.push(
            `${name} was ${after.has(name) ? "changed" : "removed"} by the refused start: a refusal loses nothing`,
          );
      for (const message of problems) out.findings.push({ subject, message });
      if (problems.length === 0) out.held += 1;
    } finally {
      await stopAll(context);
    }
  }
  return out;
}

/** How many orders a full disk may take before the server must refuse one. */
const FULL_DISK_TRIES = 200;

/** A full disk: refused once nothing can be written, nothing acknowledged lost, orders taken again with room. */
export async function fullDisk(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  const scenario = "a full disk";
  const dir = folder(context, "full-disk");
  try {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    const placed: Placed[] = [];
    placed.push(await placeKept(desk, "custody-full-0"));
    const cannot = await limitFileSizes(server, 0);
    if (cannot) {
      out.notes.push(`${scenario}: not judged, the file-size limit could not be set (${cannot})`);
      return out;
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
    await server.kill();
    const again = await serving(context, dir, STATE_NAME, "again after kill -9 with its own state file");
    await judgeKept(await deskAt(context, again), placed, scenario, out);
  } catch (error) {
    if (!(error instanceof CustodyStop)) throw error;
    out.findings.push({ subject: scenario, message: error.message });
  } finally {
    await stopAll(context);
  }
  return out;
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
  const out = judgement();
  const scenario = "a stop (SIGTERM) while orders arrive";
  const dir = folder(context, "graceful-stop");
  try {
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
  } catch (error) {
    if (!(error instanceof CustodyStop)) throw error;
    out.findings.push({ subject: scenario, message: error.message });
  } finally {
    await stopAll(context);
  }
  return out;
}

/** Orders in flight at once while a long history is made. */
const HISTORY_FLIGHT = 10;
/** Orders placed between two cancel_all_orders, below any sensible limit on open orders. */
const HISTORY_OPEN = 100;

/**
 * A long history: `context.history` orders on one symbol (each cancelled soon after, in bunches),
 * then the first, one from the middle and the last are found by their client order ids, on the
 * server that took them and at the next start after kill -9; the first's id, its order closed, is
 * given to a new order, which is then what the id finds. A cache or an index of recent client
 * order ids that loses old ones shows here.
 */
export async function longHistory(context: CustodyContext): Promise<Judgement> {
  const out = judgement();
  const scenario = `a history of ${context.history} orders`;
  if (context.history < 2) {
    out.notes.push("a long history: not tried (give --history N, N orders on one symbol)");
    return out;
  }
  const dir = folder(context, "long-history");
  try {
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
    await judgeFound(desk, kept, scenario, out, "on the server that took them");
    await judgeListed(desk, all, scenario, out, "on the server that took them");
    const reused = await placeKept(desk, kept[0]!.clientOrderId);
    kept[0] = reused;
    all.push(reused);
    const when = "once the first order's client order id was given to a new order";
    await judgeFound(desk, kept, scenario, out, when);
    await judgeListed(desk, all, scenario, out, when);
    await server.kill();
    const restarted = await serving(context, dir, STATE_NAME, "again after kill -9 with its own state file");
    const again = await deskAt(context, restarted);
    await judgeFound(again, kept, scenario, out, "at the next start on the same state file");
    await judgeListed(again, all, scenario, out, "at the next start on the same state file");
  } catch (error) {
    if (!(error instanceof CustodyStop)) throw error;
    out.findings.push({ subject: scenario, message: error.message });
  } finally {
    await stopAll(context);
  }
  return out;
}

/** Each order found by its client order id, as the order it is. */
async function judgeFound(
  desk: Desk,
  orders: readonly Placed[],
  scenario: string,
  out: Judgement,
  when: string,
): Promise<void> {
  for (const order of orders) {
    if (!("orderId" in order)) continue;
    const found = await lookUp(desk, order.clientOrderId);
    if (found === order.orderId) out.held += 1;
    else
      out.findings.push({
        subject: `${scenario}: clientOrderId ${order.clientOrderId}`,
        message: `${when}, query_order by origClientOrderId finds ${found === undefined ? "nothing" : `order ${found}`}, not order ${order.orderId}, the newest order with that id`,
      });
  }
}

async function cancelAll(desk: Desk): Promise<void> {
  const op = desk.session.model.operation("cancel_all_orders");
  if (!op) throw new CustodyStop("the spec has no cancel_all_orders, so a long history cannot be made");
  const answer = await quietCall(desk.session, op, { symbol: desk.far.symbol }, "custody: cancel a bunch");
  if (!ok(answer)) throw new CustodyStop(`cancel_all_orders was refused: ${describeAnswer(answer)}`);
}

/** Every scenario, in the order a report lists them. */
export const SCENARIOS: ReadonlyArray<{ name: string; run(context: CustodyContext): Promise<Judgement> }> = [
  { name: "one writer", run: oneWriter },
  { name: "taken away", run: takenAway },
  { name: "damaged at start", run: damagedAtStart },
  { name: "full disk", run: fullDisk },
  { name: "graceful stop", run: gracefulStop },
  { name: "long history", run: longHistory },
];
