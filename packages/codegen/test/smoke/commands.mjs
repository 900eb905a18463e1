// The smoke test of marketapi-codegen as a consumer installs it (packed, alone): it generates
// TypeScript, `--check` passes on fresh output and fails once a generated file is deleted.
// scripts/release-check.mjs runs it in the consumer project.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** @typedef {import("../../../../scripts/release-check.mjs").SmokeContext} SmokeContext */

/** @type {Record<string, (ctx: SmokeContext) => Promise<string[]>>} */
export const smoke = {
  async "marketapi-codegen"(ctx) {
    const out = join(ctx.dir, "src", "generated");
    const generate = await ctx.runBin("marketapi-codegen", ["--out", "src/generated"]);
    if (generate.code !== 0) return [ctx.transcript("marketapi-codegen --out src/generated", generate)];
    const written = existsSync(out) ? readdirSync(out) : [];
    const typescript = written.find((f) => f.endsWith(".ts"));
    // Without a .ts file there is nothing to delete for the stale check below: stop here.
    if (typescript === undefined) {
      return [
        `marketapi-codegen --out src/generated wrote no .ts file; it wrote: ${written.join(", ") || "nothing"}`,
      ];
    }
    const failures = [];
    const fresh = await ctx.runBin("marketapi-codegen", ["--out", "src/generated", "--check"]);
    if (fresh.code !== 0) failures.push(ctx.transcript("marketapi-codegen --check on fresh output", fresh));
    rmSync(join(out, typescript));
    const stale = await ctx.runBin("marketapi-codegen", ["--out", "src/generated", "--check"]);
    if (stale.code !== 1) {
      failures.push(
        ctx.transcript(`marketapi-codegen --check after ${typescript} was deleted (want exit 1)`, stale),
      );
    }
    return failures;
  },
};
