// x-limit: default, maximum and what happens above it. A higher maximum or truncating instead of
// refusing is compatible (requests that worked still do); a lower maximum, refusing instead of
// truncating or another default (a client that omits limit gets another count) is breaking.
import { type At, child, show } from "../comparison.js";
import { changedFields, presence } from "./behaviour-change.js";
import type { ExtensionRule } from "./extension.js";

const KEY = "x-limit";
const num = (at: At) => (typeof at.value === "number" ? at.value : 0);

export const limit: ExtensionRule = {
  key: KEY,
  compare(c, o, n) {
    if (!presence(c, o, n, KEY, "limit semantics")) return;
    changedFields(c, o, n, KEY, ["parameter", "default", "counts"]);
    const [mb, ma] = [child(o, "maximum"), child(n, "maximum")];
    if (num(ma) > num(mb))
      c.report(mb, ma, {
        kind: "limit-maximum-raised",
        class: "compatible",
        breaksImplementations: true,
        message: `${KEY} maximum from ${show(mb.value)} to ${show(ma.value)}: larger pages are served`,
      });
    else if (num(ma) < num(mb))
      c.report(mb, ma, {
        kind: "limit-maximum-lowered",
        class: "breaking",
        message: `${KEY} maximum from ${show(mb.value)} to ${show(ma.value)}: pages that were served are cut or refused`,
      });
    const [ab, aa] = [child(o, "aboveMaximum"), child(n, "aboveMaximum")];
    if (ab.value !== aa.value) {
      const lenient = aa.value === "truncate";
      c.report(ab, aa, {
        kind: lenient ? "limit-truncates" : "limit-refuses",
        class: lenient ? "compatible" : "breaking",
        breaksImplementations: lenient,
        message: lenient
          ? `${KEY}: a limit above the maximum is now truncated instead of refused`
          : `${KEY}: a limit above the maximum is now refused instead of truncated`,
      });
    }
  },
};
