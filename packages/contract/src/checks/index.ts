// The registry of the contract tester's checks: one module each, named after the check, each
// exporting one ContractCheck (check.ts). Every list of checks is derived from CHECKS: the names
// of the results (CHECK_NAMES), their descriptions and column labels, the checks each phase runs
// (checksAt), the operations a check does not apply to. The order of CHECKS is the order of the
// report's columns and the order in which a phase runs its checks.

import type { ContractModel, ContractOperation } from "../core/operations.js";
import { accountIsolation } from "./account-isolation.js";
import { accountViews } from "./account-views.js";
import { aggregateCover } from "./aggregate-cover.js";
import { announcedRules } from "./announced-rules.js";
import { authEnforcement } from "./auth-enforcement.js";
import { bookOrders } from "./book-orders.js";
import { cancelRace } from "./cancel-race.js";
import type { CheckHook, CheckPhase, ContractCheck } from "./check.js";
import { clockSanity } from "./clock-sanity.js";
import { contentTypeConformance } from "./content-type-conformance.js";
import { cursorPaging } from "./cursor-paging.js";
import { defaultsHonoured } from "./defaults-honoured.js";
import { epochUnits } from "./epoch-units.js";
import { everySymbol } from "./every-symbol.js";
import { exchangeFilters } from "./exchange-filters.js";
import { limitSemantics } from "./limit-semantics.js";
import { listOrder } from "./list-order.js";
import { methodRefusal } from "./method-refusal.js";
import { negativeDataRejection } from "./negative-data-rejection.js";
import { notAServerError } from "./not-a-server-error.js";
import { orderArithmetic } from "./order-arithmetic.js";
import { orderLifecycle } from "./order-lifecycle.js";
import { orderTimes } from "./order-times.js";
import { orderViews } from "./order-views.js";
import { rateCounters } from "./rate-counters.js";
import { rateLimitEnforcement } from "./rate-limit-enforcement.js";
import { readableErrors } from "./readable-errors.js";
import { responseHeadersConformance } from "./response-headers-conformance.js";
import { responseSchemaConformance } from "./response-schema-conformance.js";
import { resultFilter } from "./result-filter.js";
import { sharedFacts } from "./shared-facts.js";
import { statefulExploration } from "./stateful-exploration.js";
import { statusCodeConformance } from "./status-code-conformance.js";
import { stopTriggers } from "./stop-triggers.js";
import { symbolCase } from "./symbol-case.js";
import { timeUnit } from "./time-unit.js";
import { timeWindow } from "./time-window.js";
import { tradeStatistics } from "./trade-statistics.js";
import { unknownReference } from "./unknown-reference.js";
import { wireVariants } from "./wire-variants.js";

export type { CheckHook, CheckPhase, ContractCheck } from "./check.js";

export const CHECKS = [
  notAServerError,
  statusCodeConformance,
  contentTypeConformance,
  responseSchemaConformance,
  responseHeadersConformance,
  readableErrors,
  negativeDataRejection,
  authEnforcement,
  defaultsHonoured,
  orderLifecycle,
  clockSanity,
  listOrder,
  cursorPaging,
  timeWindow,
  resultFilter,
  limitSemantics,
  unknownReference,
  symbolCase,
  methodRefusal,
  exchangeFilters,
  announcedRules,
  everySymbol,
  bookOrders,
  stopTriggers,
  accountIsolation,
  orderTimes,
  timeUnit,
  epochUnits,
  rateCounters,
  wireVariants,
  orderArithmetic,
  cancelRace,
  sharedFacts,
  tradeStatistics,
  aggregateCover,
  accountViews,
  orderViews,
  statefulExploration,
  rateLimitEnforcement,
] as const;

export type CheckName = (typeof CHECKS)[number]["name"];

export const CHECK_NAMES: readonly CheckName[] = CHECKS.map((check) => check.name);

export const CHECK_DESCRIPTIONS = Object.fromEntries(
  CHECKS.map((check) => [check.name, check.description]),
) as Record<CheckName, string>;

/** The column labels of the text report; `--only` accepts them as well as the full names. */
export const CHECK_LABELS = Object.fromEntries(CHECKS.map((check) => [check.name, check.label])) as Record<
  CheckName,
  string
>;

export function isCheckName(name: string): name is CheckName {
  return (CHECK_NAMES as readonly string[]).includes(name);
}

/** A check with its hook in one phase. */
export type Hooked<P extends CheckPhase> = ContractCheck<CheckName> & {
  hook: Extract<CheckHook, { phase: P }>;
};

/** The checks a phase runs, each with its hook there, in the order of CHECKS. */
export function checksAt<P extends CheckPhase>(phase: P): readonly Hooked<P>[] {
  const out: Hooked<P>[] = [];
  for (const check of CHECKS as readonly ContractCheck<CheckName>[]) {
    const hook = check.hooks.find((h): h is Extract<CheckHook, { phase: P }> => h.phase === phase);
    if (hook) out.push({ ...check, hook });
  }
  return out;
}

/** The checks run on every answer, whatever the request was for. */
export const ANSWER_CHECKS = checksAt("answer");

/** The names of the checks run on every answer. */
export const RESPONSE_CHECKS: readonly CheckName[] = ANSWER_CHECKS.map((check) => check.name);

/** Whether the check judges the operation (see ContractCheck.appliesTo). */
export function appliesTo(check: ContractCheck, operation: ContractOperation, model: ContractModel): boolean {
  return check.appliesTo === undefined || check.appliesTo(operation, model);
}
