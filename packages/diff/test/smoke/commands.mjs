// The smoke test of marketapi-diff as a consumer installs it (packed, alone): no change between a
// document and itself, a breaking change classified as such, and a document it cannot read named
// with its line. scripts/release-check.mjs runs it in the consumer project.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** @typedef {import("../../../../scripts/release-check.mjs").SmokeContext} SmokeContext */

/** An OpenAPI document with one operation whose `symbol` query parameter may be required. */
function document(/** @type {string} */ version, /** @type {boolean} */ symbolRequired) {
  return JSON.stringify({
    openapi: "3.1.0",
    info: { title: "consumer", version },
    paths: {
      "/ping": {
        get: {
          operationId: "ping",
          parameters: [{ name: "symbol", in: "query", required: symbolRequired, schema: { type: "string" } }],
          responses: { 200: { description: "ok" } },
        },
      },
    },
  });
}

/** @type {Record<string, (ctx: SmokeContext) => Promise<string[]>>} */
export const smoke = {
  async "marketapi-diff"(ctx) {
    const failures = [];
    writeFileSync(join(ctx.dir, "old.json"), document("1.0.0", false));
    writeFileSync(join(ctx.dir, "new.json"), document("2.0.0", true));
    // An OpenAPI version it does not read (3.0 it upgrades first).
    writeFileSync(join(ctx.dir, "bad.yaml"), "openapi: 9.9.9\ninfo: { title: x, version: '1' }\npaths: {}\n");
    const same = await ctx.runBin("marketapi-diff", ["old.json", "old.json"]);
    if (same.code !== 0)
      failures.push(ctx.transcript("marketapi-diff old.json old.json (want exit 0)", same));
    const breaking = await ctx.runBin("marketapi-diff", ["old.json", "new.json", "--json"]);
    /** @type {string[]} */
    const kinds =
      breaking.code === 1
        ? JSON.parse(breaking.stdout).changes.map((/** @type {{ kind: string }} */ c) => c.kind)
        : [];
    if (!kinds.includes("parameter-became-required")) {
      const want = "want exit 1, parameter-became-required";
      failures.push(ctx.transcript(`marketapi-diff old.json new.json --json (${want})`, breaking));
    }
    const bad = await ctx.runBin("marketapi-diff", ["old.json", "bad.yaml"]);
    const where = "bad.yaml#/openapi (line 1, column 1)";
    if (bad.code !== 1 || !bad.stderr.includes(where)) {
      failures.push(ctx.transcript(`marketapi-diff old.json bad.yaml (want exit 1 naming ${where})`, bad));
    }
    return failures;
  },
};
