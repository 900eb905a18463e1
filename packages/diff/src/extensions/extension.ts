import type { At, Comparison } from "../comparison.js";

/**
 * One vendor extension's rules. `compare` gets the extension's value in both documents (either may
 * be absent) and the object that carries it, and reports what changed.
 */
export interface ExtensionRule {
  key: string;
  compare(c: Comparison, o: At, n: At, owner: { old: At; new: At }): void;
}
