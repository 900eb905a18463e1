/**
 * What checks record: one cell per check and operation, failures with their evidence, and the
 * Recorder that collects them during a run. Check names are plain strings at this layer (the
 * registry, checks/index.ts, sits above it); the Recorder knows every name of the run and refuses
 * one it does not know, so a misspelt name is an internal error, never a verdict silently lost.
 */

import type { WireRequest } from "../http/request.js";

/** A check's name (checks/index.ts lists them; the Recorder holds the run to that list). */
export type CheckName = string;

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

  /**
   * `checks`: the checks this run records (`--only`); `known`: every check there is (a verdict of
   * another name is a defect of the tester). Defaults to `checks`.
   */
  constructor(
    private readonly checks: readonly CheckName[],
    private readonly operations: readonly string[],
    private readonly known: readonly CheckName[] = checks,
  ) {}

  enabled(check: CheckName): boolean {
    if (!this.known.includes(check)) throw new Error(`internal: no check is named ${JSON.stringify(check)}`);
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
