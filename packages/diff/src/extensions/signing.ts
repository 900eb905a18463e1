// x-signing: the signing rule. Any change to it invalidates every signature clients compute, so
// every change is breaking, test vectors included (they are the rule, by example).
import { compareStructurally } from "../structural.js";
import type { ExtensionRule } from "./extension.js";

export const signing: ExtensionRule = {
  key: "x-signing",
  compare(c, o, n) {
    compareStructurally(
      c,
      o,
      n,
      "breaking",
      "the signing rule changed, so signatures computed by the old rule no longer verify",
      "signing-changed",
    );
  },
};
