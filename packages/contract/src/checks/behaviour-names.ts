/** The checks derived from the spec's behaviour extensions, and what each judges. */
export const BEHAVIOUR_CHECKS = [
  "list_order",
  "cursor_paging",
  "time_window",
  "result_filter",
  "limit_semantics",
  "unknown_reference",
  "symbol_case",
  "exchange_filters",
  "order_arithmetic",
  "cancel_race",
] as const;

export type BehaviourCheck = (typeof BEHAVIOUR_CHECKS)[number];

export const BEHAVIOUR_CHECK_DESCRIPTIONS: Record<BehaviourCheck, string> = {
  list_order: "every list answer is sorted by the field and direction x-list-order states",
  cursor_paging: "a page asked from an id starts there and runs on without gaps or repeats (x-cursor-paging)",
  time_window:
    "startTime/endTime select exactly the items between them, each alone anchors as stated, wider windows are refused (x-time-window)",
  result_filter: "symbol/symbols restrict the answer to exactly what they name (x-result-filter)",
  limit_semantics: "limit cuts, defaults, and above the maximum truncates or refuses as x-limit states",
  unknown_reference: "an unknown symbol or order is refused with the code x-unknown-reference names",
  symbol_case: "a listed symbol in lower or mixed case is refused, not matched regardless of case",
  exchange_filters: "orders breaking exchange_info's tick size, lot size or minimum notional are refused",
  cancel_race:
    "a cancel sent at the same moment as a fill of the same order gets exactly one outcome, and query_order agrees",
  order_arithmetic:
    "MARKET, LIMIT IOC/FOK and a resting LIMIT really trade: fills add up, status follows the executed quantity, IOC/FOK never rest (x-order-arithmetic)",
};
