/**
 * A full disk (run/custody.ts): a file-size limit on the running server, and a disk full from the
 * first start. Nothing acknowledged is lost, nothing refused is kept, and orders are taken again
 * once there is room.
 */
import { constants } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type CustodyContext,
  firstStart,
  folder,
  judged,
  refusalProblems,
  STATE_NAME,
  serving,
  start,
} from "./custody-context.js";
import {
  afterKill,
  cancel,
  type Desk,
  deskAt,
  judgeKept,
  type Placed,
  pingAt,
  place,
  placeKept,
} from "./custody-orders.js";
import { limitFileSize, type OperatedServer } from "./operated-server.js";
import type { Judgement } from "./persistence.js";

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
    if (await endedByLimit(server, desk, context)) {
      out.notes.push(
        `${scenario}: ended by SIGXFSZ, the file-size limit's own signal (a real full disk sends none), after ${acknowledged} order(s) acknowledged: what it acknowledged is judged at the next start`,
      );
      await judgeKept(
        await deskAt(context, await serving(context, dir, STATE_NAME, "again after SIGXFSZ ended it")),
        placed,
        scenario,
        out,
      );
      return;
    }
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

/**
 * Whether the server ended by SIGXFSZ (a process that does not ignore the limit's signal; a shell
 * that ran it as a child ends with 128 + its number): asked only once ping goes unanswered, and
 * waited for until the start timeout.
 */
async function endedByLimit(server: OperatedServer, desk: Desk, context: CustodyContext): Promise<boolean> {
  if (await pingAt(desk)) return false;
  const waited = new AbortController();
  const ending = await Promise.race([
    server.ended,
    sleep(context.startTimeoutMs, undefined, { signal: waited.signal }).catch(() => undefined),
  ]);
  waited.abort();
  const signal = constants.signals.SIGXFSZ;
  return ending !== undefined && (ending.signal === "SIGXFSZ" || ending.code === 128 + signal);
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
