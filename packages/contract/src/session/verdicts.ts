/** The result model of a run: one cell per check and operation, failures with their evidence. */
import { ANSWER_CHECKS, type CheckName } from "./checks/index.js";
import type { CoverageReport } from "./coverage.js";
import type { ExplorationSummary } from "./explore/index.js";
import type { WireRequest } from "./http/request.js";

// The names, descriptions and labels of the checks are derived from the check modules
// (checks/index.ts); they are re-exported here, where results are described.
export {
  CHECK_DESCRIPTIONS,
  CHECK_LABELS,
  CHECK_NAMES,
  type CheckName,
  isCheckName,
} from "./checks/index.js";

/** The checks run on every answer, whatever the request was for. */
export const RESPONSE_CHECKS: readonly CheckName[] = ANSWER_CHECKS.map((check) => check.name);

/** One request and what came back, secrets masked, body cut to an excerpt. */
export interface ExchangeRecord {
  /** What the request was for ("example", "boundary limit=5000", "negative: missing symbol"). */
  case: string;
  request: WireRequest;
  response?: {
    status: number;
    contentType: string;
    headers: Record<string, string>;
    bodyExcerpt: string;
  };
  /** Why there is no response (timeout, connection refused). */
  error?: string;
  durationMs: number;
}

export interface Failure {
  check: CheckName;
  operationId: string;
  message: string;
  /** Where in the body (JSON Pointer) and which schema rule failed. */
  schemaPath?: string;
  exchange?: ExchangeRecord;
  /** The minimal sequence a stateful failure was shrunk to, every request of it in order. */
  sequence?: SequenceEvidence;
}

/** A failing sequence of the exploration, shrunk: enough to read it and to send it again. */
export interface SequenceEvidence {
  /** fast-check's seed and path of the sequence (the same run regenerates it). */
  seed: number;
  path: string;
  shrinks: number;
  steps: Array<{ step: number; description: string; exchange: ExchangeRecord }>;
}

export type CellStatus = "passed" | "failed" | "skipped";

export interface Cell {
  check: CheckName;
  operationId: string;
  status: CellStatus;
  /** Assertions that held. */
  passed: number;
  /** Assertions that failed (failures lists the first few). */
  failed: number;
  /** Why the cell was skipped, or notes on what could not be observed. */
  reason?: string;
  failures: Failure[];
}

export interface CleanupReport {
  /** Orders the target accepted during this run. */
  created: number;
  /** Order-creating requests the run sent, accepted or not (0: the run never tried to trade). */
  sent?: number;
  /** Accepted orders by what placed them ("order lifecycle", "history", "order arithmetic"…). */
  placedBy?: Record<string, number>;
  /** Orders cancelled by the final clean-up (the lifecycle cancels most on its own). */
  cancelledAtEnd: number;
  /** Orders that may still be open: client order ids with their symbol. */
  leftOpen: string[];
}

export interface ContractResult {
  /**
   * 0: every check that ran passed; 1: a contract failure; 2: usage or connection error; 130:
   * interrupted. The command exits by @marketapi/command's table instead (3 for what is not
   * usage: an unreachable server, the deadline, orders not confirmed cancelled; cli.ts exitCodeOf).
   */
  exitCode: 0 | 1 | 2 | 3 | 130;
  /** Why the run did not complete normally; "cleanup": orders it created may still be open. */
  error?: {
    kind: "usage" | "connection" | "interrupted" | "deadline" | "internal" | "cleanup";
    message: string;
    /** "start-up": the run stopped before its checks began (probe, credentials); no verdict was reached. */
    during?: "start-up";
  };
  target: { baseUrl: string; kind: "embedded" | "base-url" | "endpoint"; label?: string };
  trading: boolean;
  /** Why trading operations were not exercised, when they were not. */
  tradingNote?: string;
  seed: number;
  maxRequests: number;
  checks: CheckName[];
  operations: string[];
  cells: Cell[];
  /** Operations that answered 404, 405 or 501 to every request: one verdict each (exit 1). */
  notImplemented: Array<{ operationId: string; status: number; requests: number }>;
  stats: { requests: number; durationMs: number; requestsPerSecond: number };
  cleanup: CleanupReport;
  summary: { passed: number; failed: number; skipped: number };
  /** What the stateful exploration ran and exercised (coverage by operation), when it ran. */
  exploration?: ExplorationSummary;
  /** What the run exercised per operation, and why the rest was not (absent when no request was sent). */
  coverage?: CoverageReport;
}

const FAILURES_KEPT_PER_CELL = 5;

interface CellState {
  passed: number;
  failed: number;
  failures: Failure[];
  skips: string[];
  notes: string[];
}

/** Collects pass/fail/skip per (check, operation) during a run. */
export class Recorder {
  private readonly cells = new Map<string, CellState>();

  constructor(
    private readonly checks: readonly CheckName[],
    private readonly operations: readonly string[],
  ) {}

  enabled(check: CheckName): boolean {
    return this.checks.includes(check);
  }

  private state(check: CheckName, operationId: string): CellState {
    const key = `${check}\u0000${operationId}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { passed: 0, failed: 0, failures: [], skips: [], notes: [] };
      this.cells.set(key, cell);
    }
    return cell;
  }

  pass(check: CheckName, operationId: string): void {
    if (this.enabled(check)) this.state(check, operationId).passed += 1;
  }

  fail(failure: Failure): void {
    if (!this.enabled(failure.check)) return;
    const cell = this.state(failure.check, failure.operationId);
    cell.failed += 1;
    if (cell.failures.length < FAILURES_KEPT_PER_CELL) cell.failures.push(failure);
  }

  skip(check: CheckName, operationId: string, reason: string): void {
    if (!this.enabled(check)) return;
    const cell = this.state(check, operationId);
    if (!cell.skips.includes(reason)) cell.skips.push(reason);
  }

  /** A remark shown with a passing cell (something that could not be observed). */
  note(check: CheckName, operationId: string, note: string): void {
    if (!this.enabled(check)) return;
    const cell = this.state(check, operationId);
    if (!cell.notes.includes(note)) cell.notes.push(note);
  }

  hasFailures(): boolean {
    for (const cell of this.cells.values()) if (cell.failed > 0) return true;
    return false;
  }

  result(): Cell[] {
    const out: Cell[] = [];
    for (const check of this.checks) {
      for (const operationId of this.operations) {
        const s = this.cells.get(`${check}\u0000${operationId}`);
        if (!s || (s.passed === 0 && s.failed === 0)) {
          out.push({
            check,
            operationId,
            status: "skipped",
            passed: 0,
            failed: 0,
            reason: s?.skips[0] ?? s?.notes[0] ?? "not exercised",
            failures: [],
          });
          continue;
        }
        const reasons = [...s.notes, ...s.skips];
        out.push({
          check,
          operationId,
          status: s.failed > 0 ? "failed" : "passed",
          passed: s.passed,
          failed: s.failed,
          ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}),
          failures: s.failures,
        });
      }
    }
    return out;
  }
}
