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
