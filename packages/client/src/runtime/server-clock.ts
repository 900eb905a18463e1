// `syncClock`: the offset of the server's clock (x-server-time), measured before the first signed
// request and again after a timestamp is refused (-1021); signed requests carry the corrected time.

import { valueAt } from "./call-facts.js";

/** One reading of the server's clock: its time, and this machine's clock when the request went and came back. */
export interface ClockReading {
  readonly serverTime: number;
  readonly sentAt: number;
  readonly receivedAt: number;
}

export interface ServerClock {
  /** This machine's clock corrected by the measured offset (the local clock until measured). */
  now(): number;
  /** Measures the offset unless it has been; every caller waits for the same measurement. */
  ready(): Promise<void>;
  /** Measures again (after a -1021). */
  remeasure(): Promise<void>;
  /** The offset in ms (server − local), once measured. */
  offset(): number | undefined;
}

/** Readings taken per measurement; the one with the shortest round trip is kept. */
const READINGS = 3;

/** Sends an operation (without parameters) and resolves to its answer's body. */
export type ClockReader = (operationId: string) => Promise<unknown>;

/** The clock of the server whose time `source` (x-server-time) answers, read through `send`. */
export function serverClock(
  localNow: () => number,
  source: { readonly operation: string; readonly field: string } | null,
  send: ClockReader,
): ServerClock {
  const read = async (): Promise<ClockReading> => {
    if (!source)
      throw new TypeError(
        "syncClock: the spec states no operation that answers the server's time (x-server-time)",
      );
    const sentAt = localNow();
    const body = await send(source.operation);
    const receivedAt = localNow();
    const serverTime = Number(valueAt(body, source.field));
    if (!Number.isFinite(serverTime))
      throw new TypeError(`syncClock: ${source.operation} answered no time at ${source.field}`);
    return { serverTime, sentAt, receivedAt };
  };
  let offset: number | undefined;
  let measuring: Promise<void> | undefined;
  const measure = async () => {
    let best: ClockReading | undefined;
    for (let i = 0; i < READINGS; i++) {
      const reading = await read();
      if (!best || reading.receivedAt - reading.sentAt < best.receivedAt - best.sentAt) best = reading;
    }
    offset = Math.round(best!.serverTime - (best!.sentAt + best!.receivedAt) / 2);
  };
  const start = () => {
    measuring ??= measure().finally(() => {
      measuring = undefined;
    });
    return measuring;
  };
  return {
    now: () => localNow() + (offset ?? 0),
    ready: () => (offset === undefined ? start() : Promise.resolve()),
    remeasure: start,
    offset: () => offset,
  };
}
