// What every check module says of itself: its name in the results, and the x- extensions whose
// behaviour it verifies (the completeness test, scripts/test/extension-completeness.test.ts,
// requires a check covering each extension that constrains behaviour).
import type { CheckName } from "../results.js";

export interface ContractCheck {
  name: CheckName;
  /** The `x-` keys of the spec whose behaviour this check verifies. */
  covers: readonly `x-${string}`[];
}
