/**
 * The counter headers the spec documents on answers (`X-MBX-USED-WEIGHT-1M`,
 * `X-MBX-ORDER-COUNT-10S`, ...): which an operation has, their windows, and whether two answers
 * fell in one window. Every check that judges a counter's growth reads them here, so the window
 * arithmetic and its margin are stated once.
 */
import type { ContractOperation } from "../core/operations.js";
import type { RoundTrip } from "../session/round-trip.js";

/** A counter header the spec documents: its name, and the length of its window in ms. */
export interface Counter {
  name: string;
  windowMs: number;
}

const UNIT_MS: Record<string, number> = { S: 1000, M: 60_000, H: 3_600_000, D: 86_400_000 };
/** Pairs closer than this to a window's boundary are not judged (clocks and latency). */
export const BOUNDARY_MARGIN_MS = 750;

/** The documented response headers of `operation` whose name has `kind` and an interval suffix. */
export function countersOf(operation: ContractOperation, kind: RegExp): Counter[] {
  const names = new Set(
    operation.responses.filter((r) => r.status.startsWith("2")).flatMap((r) => r.headers.map((h) => h.name)),
  );
  const out: Counter[] = [];
  for (const name of names) {
    const match = new RegExp(`^${kind.source}-(\\d+)([SMHD])$`, "i").exec(name);
    if (match) out.push({ name, windowMs: Number(match[1]) * UNIT_MS[match[2]!.toUpperCase()]! });
  }
  return out;
}

/** The counter's value in an answer, when it is a whole number. */
export function counterValue(exchange: RoundTrip, counter: Counter): number | undefined {
  const text = exchange.response?.headers[counter.name.toLowerCase()];
  return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text) : undefined;
}

/** Whether two answers fell in one window of the counter (judged on the target's clock). */
export function sameWindow(before: number, after: number, counter: Counter): boolean {
  const start = Math.floor(before / counter.windowMs);
  const inner = (t: number) => {
    const into = t % counter.windowMs;
    return into > BOUNDARY_MARGIN_MS && counter.windowMs - into > BOUNDARY_MARGIN_MS;
  };
  return start === Math.floor(after / counter.windowMs) && inner(before) && inner(after);
}
