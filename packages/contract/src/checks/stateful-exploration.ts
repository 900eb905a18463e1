// stateful_exploration: generated sequences of order operations judged against a model of the
// state after every step, on every read (src/explore/). The check's module is its descriptor; the
// exploration runs from the runner after the behaviour checks, within its own request budget.
import type { ContractCheck } from "./check.js";

export const statefulExploration: ContractCheck = {
  name: "stateful_exploration",
  // Every order type x-order-type-rules allows is placed with its rule's parameters; every variant
  // x-response-variant-by names is asked for; the arithmetic of x-order-arithmetic holds at each step.
  covers: ["x-order-type-rules", "x-response-variant-by", "x-order-arithmetic"],
};
