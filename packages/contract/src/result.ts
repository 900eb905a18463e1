/**
 * The result of a run: what runContract returns, what --json prints and what the reports show.
 */
import type { CheckName } from "./checks/index.js";
import type { ExplorationSummary } from "./explore/index.js";
import type { CleanupReport } from "./phases/cleanup.js";
import type { CoverageReport } from "./session/coverage.js";
import type { Cell } from "./session/verdicts.js";

// The names, descriptions and labels of the checks are derived from the check modules
// (checks/index.ts); they are re-exported here, where results are described.
export {
  CHECK_DESCRIPTIONS,
  CHECK_LABELS,
  CHECK_NAMES,
  type CheckName,
  isCheckName,
  RESPONSE_CHECKS,
} from "./checks/index.js";
export type { CleanupReport } from "./phases/cleanup.js";
export type { Cell, CellStatus, ExchangeRecord, Failure, SequenceEvidence } from "./session/verdicts.js";

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
  stats: {
    requests: number;
    durationMs: number;
    requestsPerSecond: number;
    /** How long the run's requests waited for the target's rate limits, in all (the pacer). */
    pacedMs?: number;
    /** The limits the run was paced by, as exchangeInfo announced them ("6000 REQUEST_WEIGHT per 1 MINUTE", …). */
    pacedBy?: string[];
    /** Answers 429 (rate limited) and 418 (banned) the run got. */
    rateLimited?: number;
    /** Why the announced limits could not pace the run, when they could not. */
    rateLimitsNote?: string;
  };
  cleanup: CleanupReport;
  summary: { passed: number; failed: number; skipped: number };
  /** What the stateful exploration ran and exercised (coverage by operation), when it ran. */
  exploration?: ExplorationSummary;
  /** What the run exercised per operation, and why the rest was not (absent when no request was sent). */
  coverage?: CoverageReport;
}
