// Every check of the contract tester, one module each (named after the check). The runner's
// passes (src/run/) call them; the results list them by CHECK_NAMES (results.ts).
import { authEnforcement } from "./auth-enforcement.js";
import { cancelRace } from "./cancel-race.js";
import type { ContractCheck } from "./check.js";
import { clockSanity } from "./clock-sanity.js";
import { contentTypeConformance } from "./content-type-conformance.js";
import { cursorPaging } from "./cursor-paging.js";
import { defaultsHonoured } from "./defaults-honoured.js";
import { exchangeFilters } from "./exchange-filters.js";
import { limitSemantics } from "./limit-semantics.js";
import { listOrder } from "./list-order.js";
import { negativeDataRejection } from "./negative-data-rejection.js";
import { notAServerError } from "./not-a-server-error.js";
import { orderArithmetic } from "./order-arithmetic.js";
import { orderLifecycle } from "./order-lifecycle.js";
import { responseHeadersConformance } from "./response-headers-conformance.js";
import { responseSchemaConformance } from "./response-schema-conformance.js";
import { resultFilter } from "./result-filter.js";
import { statefulExploration } from "./stateful-exploration.js";
import { statusCodeConformance } from "./status-code-conformance.js";
import { symbolCase } from "./symbol-case.js";
import { timeWindow } from "./time-window.js";
import { unknownReference } from "./unknown-reference.js";

export type { ContractCheck } from "./check.js";

export const CHECKS: readonly ContractCheck[] = [
  notAServerError,
  statusCodeConformance,
  contentTypeConformance,
  responseSchemaConformance,
  responseHeadersConformance,
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
  exchangeFilters,
  orderArithmetic,
  cancelRace,
  statefulExploration,
];
