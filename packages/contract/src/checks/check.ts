// What a check of the contract tester is: one module under src/checks/, named after the check,
// exporting one ContractCheck that says everything about it. Every list of checks (the results'
// names, the report's columns, --only, the usage text, the phases that run them) is derived from
// these descriptors (checks/index.ts), never written out again.
import type { ContractModel, ContractOperation, ContractResponse } from "../core/operations.js";
import type { RunContext } from "../kit/context.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";

/** Where the run calls a check. */
export type CheckHook =
  /**
   * On every answer the session receives (checks/answer.ts), in the order of CHECKS; `declared`
   * is the documented response the status falls under, when there is one.
   */
  | {
      readonly phase: "answer";
      readonly judge: (
        exchange: RoundTrip,
        declared: ContractResponse | undefined,
        verdicts: Verdicts,
      ) => void;
      /** A request that got no answer at all (timeout, refused connection, reset). */
      readonly noAnswer?: (exchange: RoundTrip, verdicts: Verdicts, message: string) => void;
    }
  /** The start-up probe (run/probe.ts). */
  | { readonly phase: "probe" }
  /**
   * The pass over each operation (run/read-only-pass.ts), in the order of CHECKS; the trading
   * phase (run/trading-phase.ts) sends the same check's probes at the operations that create or
   * cancel orders.
   */
  | {
      readonly phase: "operation";
      readonly run: (ctx: RunContext, operation: ContractOperation) => Promise<void>;
    }
  /** The trading phase (run/trading-phase.ts), with the orders it places far from the market. */
  | { readonly phase: "trading" }
  /**
   * The behaviour phase (checks/behaviour.ts), once for each operation the check applies to that
   * the run can call; `needsHistory`: trades and a book with depth are made first on a thin target.
   */
  | {
      readonly phase: "behaviour";
      readonly run: (ctx: RunContext, operation: ContractOperation) => Promise<void>;
      readonly needsHistory: boolean;
    }
  /** The behaviour phase, once per run, before the per-operation checks: orders that really trade. */
  | { readonly phase: "trading-behaviour"; readonly run: (ctx: RunContext) => Promise<void> }
  /**
   * After the behaviour phase, once per run, within its own request budget: generated sequences of
   * order operations judged against a model (src/explore/; the runner calls it, it reports a summary).
   */
  | { readonly phase: "exploration" }
  /**
   * The behaviour phase, once per run, after the per-operation checks and before the history made
   * for them is cleaned up: the relations between operations (x-relations).
   */
  | { readonly phase: "relation"; readonly run: (ctx: RunContext) => Promise<void> };

export type CheckPhase = CheckHook["phase"];

export interface ContractCheck<Name extends string = string> {
  /** The check's name in results, JUnit and `--only` (snake case; its module is the kebab-case file). */
  readonly name: Name;
  /** The short column label of the text report; `--only` accepts it too. */
  readonly label: string;
  /** One line on what must hold (the usage text prints it). */
  readonly description: string;
  /**
   * The `x-` keys of the spec whose behaviour this check verifies (the completeness test,
   * scripts/test/extension-completeness.test.ts, requires a check covering each extension that
   * constrains behaviour).
   */
  readonly covers: readonly `x-${string}`[];
  readonly hook: CheckHook;
  /**
   * The operations the check judges (the model: for relations the document states); every other
   * gets a skipped cell saying `notApplicable`. Absent: every operation.
   */
  readonly appliesTo?: (operation: ContractOperation, model: ContractModel) => boolean;
  readonly notApplicable?: string;
  /**
   * Faults of this package's test suites (test/support/*faults.ts) that this check is seen to
   * catch: the suites run each one and fail unless this check fails on it, and test/checks.test.ts
   * fails when a check names none. A check that cannot fail is a defect.
   */
  readonly seenToCatch: readonly string[];
}
