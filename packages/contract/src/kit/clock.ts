/**
 * Reading the target's clock: server_time with this machine's clock around it, and the HTTP Date
 * header beside it. The start-up probe decides from such readings which clock to sign with
 * (checks/clock-sanity.ts judges them).
 */
import type { ContractOperation } from "../core/operations.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { CallOptions, Session } from "../session/session.js";
import { bodyObject } from "./answers.js";

export interface ClockReading {
  exchange: RoundTrip;
  /** serverTime, when it is a finite number. */
  serverTime: number | undefined;
  /** This machine's clock halfway between sending and receiving. */
  local: number;
  /** Half the round trip: how uncertain `local` is. */
  halfTrip: number;
  /** The HTTP Date header in epoch ms (whole seconds), when sent and readable. */
  date: number | undefined;
}

export async function readServerClock(
  session: Session,
  time: ContractOperation,
  label: string,
  options: CallOptions = {},
): Promise<ClockReading> {
  const sentAt = Date.now();
  const exchange = await session.call({ op: time, params: [] }, label, options);
  const receivedAt = Date.now();
  const serverTime = bodyObject(exchange)?.serverTime;
  const dateHeader = exchange.response?.headers.date;
  const date = dateHeader !== undefined ? Date.parse(dateHeader) : Number.NaN;
  return {
    exchange,
    serverTime: typeof serverTime === "number" && Number.isFinite(serverTime) ? serverTime : undefined,
    local: (sentAt + receivedAt) / 2,
    halfTrip: (receivedAt - sentAt) / 2,
    date: Number.isFinite(date) ? date : undefined,
  };
}

/** When a request was sent and its answer came, by this machine's clock, on one clock epoch. */
export interface Sequenced {
  sentAt: number;
  answeredAt: number;
  /** The session's clock epoch: times of different epochs do not compare (a sandbox clock moved). */
  clock: number;
}

/** A server_time answer, with its serverTime in milliseconds. */
export interface ServerTimeRead extends Sequenced {
  serverTime: number;
}

/** A time the server stamped on an event it handled (an order's transactTime), in milliseconds. */
export interface StampedEvent extends Sequenced {
  time: number;
  what: string;
}

/**
 * The server's clock against itself: a server_time read answered before an event's request was
 * sent is no later than the event's time, and one sent after the event's answer came is no
 * earlier (the same clock, one event after the other). Only strictly ordered pairs on one clock
 * epoch are judged. The problems, the first few. Pure.
 */
export function clockOrderProblems(
  reads: readonly ServerTimeRead[],
  events: readonly StampedEvent[],
  most = 3,
): string[] {
  const problems: string[] = [];
  for (const event of events) {
    const problem = reads.map((read) => outOfOrder(read, event)).find((p) => p !== undefined);
    if (problem) problems.push(problem);
  }
  const shown = problems.slice(0, most);
  return problems.length > most ? [...shown, `${problems.length - most} more event(s) so`] : shown;
}

function outOfOrder(read: ServerTimeRead, event: StampedEvent): string | undefined {
  if (read.clock !== event.clock) return undefined;
  if (read.answeredAt < event.sentAt && read.serverTime > event.time)
    return `serverTime ${read.serverTime}, read before ${event.what} was sent, is later than its time ${event.time}`;
  if (read.sentAt > event.answeredAt && read.serverTime < event.time)
    return `serverTime ${read.serverTime}, read after ${event.what} was answered, is earlier than its time ${event.time}`;
  return undefined;
}
