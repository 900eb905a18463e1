// x-filled-from: where the parts the source document leaves open were taken from. Documentation
// only: no program reads it, so every change is informational.
import { compareStructurally } from "../structural.js";
import type { ExtensionRule } from "./extension.js";

export const filledFrom: ExtensionRule = {
  key: "x-filled-from",
  compare(c, o, n) {
    compareStructurally(c, o, n, "informational", "documentation only");
  },
};
