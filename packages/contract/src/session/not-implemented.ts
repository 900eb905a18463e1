/**
 * Partial implementations: an operation that answers 404, 405 or 501 to every request the run
 * sends it is "not implemented". It gets one verdict, one line in the report, instead of a failed
 * assertion per request and check; the run still fails (exit 1), since the contract lists it.
 */

import type { RoundTrip } from "./round-trip.js";
import type { Cell } from "./verdicts.js";

const ABSENT = new Set([404, 405, 501]);

export class ImplementationTracker {
  private readonly answered = new Map<string, { absent: number; other: number; status: number }>();

  see(exchange: RoundTrip): void {
    const status = exchange.response?.status;
    if (status === undefined) return;
    const seen = this.answered.get(exchange.op.operationId) ?? { absent: 0, other: 0, status };
    if (ABSENT.has(status)) seen.absent += 1;
    else seen.other += 1;
    seen.status = status;
    this.answered.set(exchange.op.operationId, seen);
  }

  /** The status last seen when every answer of the operation so far was 404, 405 or 501. */
  absentSoFar(operationId: string): number | undefined {
    const seen = this.answered.get(operationId);
    return seen && seen.absent > 0 && seen.other === 0 ? seen.status : undefined;
  }

  /** Operation ids whose every answer was 404, 405 or 501, with the status last seen. */
  notImplemented(): Array<{ operationId: string; status: number; requests: number }> {
    return [...this.answered.entries()]
      .filter(([, seen]) => seen.absent > 0 && seen.other === 0)
      .map(([operationId, seen]) => ({ operationId, status: seen.status, requests: seen.absent }));
  }
}

/** The cells of operations that are not implemented, turned into one skipped cell per check. */
export function collapseNotImplemented(cells: Cell[], absent: ReadonlySet<string>): Cell[] {
  return cells.map((cell) =>
    absent.has(cell.operationId)
      ? {
          check: cell.check,
          operationId: cell.operationId,
          status: "skipped",
          passed: 0,
          failed: 0,
          reason: "not implemented (every request answered 404, 405 or 501)",
          failures: [],
        }
      : cell,
  );
}

/**
 * A cell can pass only for an operation that got a request: a check that recorded a pass on an
 * operation the run never called (a judgement made from other operations' answers alone) is
 * shown as skipped, so that a table never shows a green tick for an operation nothing reached.
 */
export function withoutUnexercisedPasses(cells: Cell[], requestsOf: (operationId: string) => number): Cell[] {
  return cells.map((cell) =>
    cell.status === "passed" && requestsOf(cell.operationId) === 0
      ? {
          check: cell.check,
          operationId: cell.operationId,
          status: "skipped",
          passed: 0,
          failed: 0,
          reason: "no request was sent to it",
          failures: [],
        }
      : cell,
  );
}
