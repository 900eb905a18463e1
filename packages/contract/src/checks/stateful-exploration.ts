// stateful_exploration: generated sequences of order operations judged against a model of the
// state after every step, on every read (its machinery is src/explore/). It runs after the
// behaviour checks, within its own request budget (--explore).
import { explorationPhase } from "../explore/index.js";
import { ORDER_OPERATION_IDS } from "../kit/order-desk.js";
import type { ContractCheck } from "./check.js";

const CHECK = "stateful_exploration";

/** The order operations, and the book and trades a sequence reads for its bracket. */
const EXPLORED = [...ORDER_OPERATION_IDS, "order_book", "recent_trades_list"];

export const statefulExploration: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "explore",
  description:
    "generated sequences of order operations (every listed type, variant, size and id) hold to a model of the state after every step, on every read",
  // Every order type x-order-type-rules allows is placed with its rule's parameters; every variant
  // x-response-variant-by names is asked for; the arithmetic of x-order-arithmetic holds at each
  // step; refusals carry the codes x-refusals names.
  covers: ["x-order-type-rules", "x-response-variant-by", "x-order-arithmetic", "x-refusals"],
  hooks: [{ phase: "exploration", run: explorationPhase }],
  appliesTo: (operation) => EXPLORED.includes(operation.operationId),
  notApplicable: "not an order operation: not explored",
  seenToCatch: [
    "query-partial-fill-as-new",
    "ioc-takes-the-best-level-only",
    "open-orders-drop-partial",
    "cancel-report-drops-fill",
    "all-orders-maker-fill-stale",
    "cancel-all-omits-partial",
    "result-variant-before-matching",
    "quote-order-origqty-is-budget",
    "limit-maker-as-limit",
    "limit-maker-as-limit-on-ethbtc",
    "duplicate-client-id-accepted",
    "mismatched-ids-follow-orderId",
    "ioc-partial-as-filled",
    "open-orders-maker-fill-zero",
    "cancel-closed-as-unknown",
  ],
};
