// Fails when regenerating changed a committed generated file: the build regenerates every
// src/generated folder from specs/, so any difference from git means the commit is stale.
import { execFileSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const pathspec = ["packages/*/src/generated"];
let changed;
try {
  changed = execFileSync("git", ["status", "--porcelain", "--", ...pathspec], {
    cwd: root,
    encoding: "utf8",
  }).trim();
} catch {
  console.log("drift: not a git checkout, so generated files cannot be compared with the commit; skipped");
  process.exit(0);
}
if (changed) {
  console.error(`drift: generated files differ from the commit after regeneration:\n${changed}`);
  console.error("drift: run `npm run build` and commit the files under packages/*/src/generated.");
  process.exit(1);
}
console.log("drift: generated files match the commit");
