// The smoke test of marketapi-contract as a consumer installs it (packed, alone): it passes against
// its embedded reference server, and against `marketapi-server` started with no options from the
// reference server it depends on, itself given no option but the target and credentials: the
// defaults of the two commands agree.
// scripts/release-check.mjs runs it in the consumer project.
import { join } from "node:path";

/** @typedef {import("../../../../scripts/release-check.mjs").SmokeContext} SmokeContext */

const DEMO_KEY = "marketapi-demo-api-key";
const DEMO_SECRET = "marketapi-demo-api-secret";

/** @type {Record<string, (ctx: SmokeContext) => Promise<string[]>>} */
export const smoke = {
  async "marketapi-contract"(ctx) {
    const failures = [];
    const env = { NO_COLOR: "1" };
    const embedded = await ctx.runBin("marketapi-contract", ["--seed", "1"], { env });
    if (embedded.code !== 0)
      failures.push(ctx.transcript("marketapi-contract (embedded reference server)", embedded));
    const serverBin = join(
      ctx.dir,
      "node_modules",
      "@marketapi",
      "reference-server",
      "bin",
      "marketapi-server.js",
    );
    const server = ctx.startServer(process.execPath, [serverBin]);
    try {
      const url = await server.started;
      const args = ["--base-url", url, "--api-key", DEMO_KEY, "--api-secret", DEMO_SECRET];
      const remote = await ctx.runBin("marketapi-contract", [...args, "--allow-trading", "--seed", "1"], {
        env,
      });
      if (remote.code !== 0) failures.push(ctx.transcript(`marketapi-contract --base-url ${url}`, remote));
    } finally {
      await server.stop();
    }
    return failures;
  },
};
