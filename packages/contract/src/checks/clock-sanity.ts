/**
 * clock_sanity: the server's clock (server_time) is in epoch milliseconds and within a few minutes
 * of the tester's. A time in seconds, or one far off, fails server_time stating the offset; the
 * run signs with the offset of a millisecond clock all the same, and says so.
 */
import type { RoundTrip } from "../round-trip.js";
import type { Session } from "../session.js";
import type { ContractCheck } from "./check.js";

const CHECK = "clock_sanity";

export const clockSanity: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "clock",
  description:
    "server_time is epoch milliseconds within a few minutes of the tester's clock (the offset is stated)",
  covers: [],
  hook: { phase: "probe" },
  appliesTo: (operation) => operation.operationId === "server_time",
  notApplicable: "judged on server_time only",
  seenToCatch: ["server-time-in-seconds", "server-clock-9-years-off"],
};
/** Largest offset that passes: a few minutes, as NTP-less test machines drift. */
export const MAX_CLOCK_OFFSET_MS = 5 * 60_000;
/** Below this a serverTime cannot be epoch milliseconds of this century (it is seconds). */
const MILLISECONDS_FROM = 1e11;

/** Judges the server time; returns the offset signing should use (0 when the value is unusable). */
export function judgeServerClock(
  session: Session,
  exchange: RoundTrip,
  serverTime: unknown,
  localMidpoint: number,
): number {
  if (typeof serverTime !== "number" || !Number.isFinite(serverTime)) return 0;
  if (serverTime < MILLISECONDS_FROM) {
    session.fail(
      CHECK,
      exchange,
      `serverTime ${serverTime} looks like seconds, not epoch milliseconds (it would be ${formatOffset(serverTime * 1000 - localMidpoint)} from this machine's clock as seconds); signing uses this machine's clock`,
      "/serverTime",
    );
    return 0;
  }
  const offset = serverTime - localMidpoint;
  if (Math.abs(offset) > MAX_CLOCK_OFFSET_MS) {
    session.fail(
      CHECK,
      exchange,
      `the server clock is ${formatOffset(offset)} from this machine's (more than ${MAX_CLOCK_OFFSET_MS / 60_000} minutes); signing uses the server's clock`,
      "/serverTime",
    );
  } else session.pass(CHECK, exchange);
  return offset;
}

export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "behind" : "ahead";
  const abs = Math.abs(ms);
  const years = abs / (365.25 * 86_400_000);
  const text =
    years >= 1
      ? `${years.toFixed(1)} years`
      : abs >= 3_600_000
        ? `${(abs / 3_600_000).toFixed(1)} h`
        : `${Math.round(abs / 1000)} s`;
  return `${text} ${sign}`;
}
