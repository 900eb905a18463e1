// What a check of the contract tester is: one module under src/checks/, named after the check,
// exporting one ContractCheck that says everything about it. Every list of checks (the results'
// names, the report's columns, --only, the usage text, the phases that run them) is derived from
// these descriptors (checks/index.ts), never written out again.
import type { ContractModel, ContractOperation, ContractResponse } from "../core/operations.js";
import type { ExplorationSummary } from "../explore/index.js";
import type { RunClock, RunContext } from "../kit/context.js";
import type { OrderDesk, Placed, Resting } from "../kit/order-desk.js";
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { Session } from "../session/session.js";

/** Where the run calls a check: each hook carries the function the phase runs. */
export type CheckHook =
  /**
   * On every answer the session receives (phases/answer.ts), in the order of CHECKS; `declared`
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
  /**
   * The start-up probe (phases/probe.ts), before anything is signed: what the check finds there
   * (the clock to sign with) is adopted by the run.
   */
  | { readonly phase: "probe"; readonly run: (session: Session) => Promise<ProbeFinding | undefined> }
  /**
   * The pass over each operation (phases/read-only-pass.ts), in the order of CHECKS.
   */
  | {
      readonly phase: "operation";
      readonly run: (ctx: RunContext, operation: ContractOperation) => Promise<void>;
    }
  /**
   * The trading phase (phases/trading-phase.ts): the phase places orders far from the market,
   * leaves some resting, cancels them one by one and all at once; at each stage it calls the
   * checks hooked on it (TradingStages), in the order of CHECKS.
   */
  | { readonly phase: "trading"; readonly run: TradingStages }
  /**
   * The behaviour phase (phases/behaviour.ts), once for each operation the check applies to that
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
   * order operations judged against a model (src/explore/); it reports a summary.
   */
  | {
      readonly phase: "exploration";
      readonly run: (ctx: RunContext) => Promise<ExplorationSummary | undefined>;
    }
  /**
   * The behaviour phase, once per run, after the per-operation checks and before the history made
   * for them is cleaned up: the relations between operations (x-relations).
   */
  | { readonly phase: "relation"; readonly run: (ctx: RunContext) => Promise<void> }
  /** Once at the end of the run, before the clean-up (the clock read again). */
  | { readonly phase: "end"; readonly run: (ctx: RunContext) => Promise<void> };

export type CheckPhase = CheckHook["phase"];

/** What a probe hook found that the run adopts. */
export interface ProbeFinding {
  /** The offset to sign with (server minus local), the first reading and what to say about it. */
  clock?: RunClock;
}

/**
 * The stages of the trading phase a check may take part in. The phase does the trading (places,
 * leaves resting, cancels); a check judges what the phase did and sends its own probes.
 */
export interface TradingStages {
  /**
   * The run's first order, through its whole life (placed, read, cancelled); false when it could
   * not be placed, and the phase goes no further. The first check that has it runs it.
   */
  readonly opening?: (desk: OrderDesk) => Promise<boolean>;
  /** The orders the phase placed in each parameter placement and response variant, still resting. */
  readonly resting?: (desk: OrderDesk, resting: Resting) => void;
  /** Probes of new_order (the desk places far-from-market orders; an accepted probe rests and is cancelled). */
  readonly newOrder?: (desk: OrderDesk) => Promise<void>;
  /** Probes of cancel_order aimed at `target`, an open order (`spare`: another one, when there is). */
  readonly cancel?: (desk: OrderDesk, target: Placed | undefined, spare: Placed | undefined) => Promise<void>;
  /** Probes of cancel_all_orders, when the account has no open order on the symbol the run did not create. */
  readonly cancelAll?: (desk: OrderDesk) => Promise<void>;
  /** After the phase's cancel_all_orders: its answer, and the run's orders that were open before it. */
  readonly cancelledAll?: (desk: OrderDesk, answer: RoundTrip, expected: readonly Placed[]) => Promise<void>;
  /** The phase could not trade (no credentials, trading not allowed, no symbol): why. */
  readonly unavailable?: (ctx: RunContext, reason: string) => void;
  /** Once the phase is over, on each trading operation it judged. */
  readonly finish?: (ctx: RunContext, operation: ContractOperation) => void;
}

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
  /** Where the run calls it (one hook per phase). */
  readonly hooks: readonly CheckHook[];
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
