// The smoke test of marketapi-docs as a consumer installs it (packed): a site built from the
// bundled spec with --endpoint-page holds the API page, the Endpoint page, the index and the
// published document.
// scripts/release-check.mjs runs it in the consumer project.
import { existsSync } from "node:fs";
import { join } from "node:path";

/** @typedef {import("../../../../scripts/release-check.mjs").SmokeContext} SmokeContext */

/** @type {Record<string, (ctx: SmokeContext) => Promise<string[]>>} */
export const smoke = {
  async "marketapi-docs"(ctx) {
    const spec = join(ctx.dir, "node_modules", "@marketapi", "spec", "dist", "openapi.yaml");
    const built = await ctx.runBin("marketapi-docs", [
      "build",
      "--spec",
      spec,
      "--out",
      "site",
      "--endpoint-page",
    ]);
    if (built.code !== 0)
      return [ctx.transcript("marketapi-docs build --spec openapi.yaml --out site --endpoint-page", built)];
    const missing = ["index.html", "api.html", "endpoint.html", "api.openapi.json"].filter(
      (file) => !existsSync(join(ctx.dir, "site", file)),
    );
    return missing.length === 0 ? [] : [`marketapi-docs build wrote no ${missing.join(", ")}`];
  },
};
