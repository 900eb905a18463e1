// The smoke test of marketapi-server as a consumer installs it (packed, alone, without the optional
// better-sqlite3): it answers ping and depth, exits 0 on SIGTERM, and `--state` says in one line
// which package to install. scripts/release-check.mjs runs it in the consumer project.

/** @typedef {import("../../../../scripts/release-check.mjs").SmokeContext} SmokeContext */

/** @type {Record<string, (ctx: SmokeContext) => Promise<string[]>>} */
export const smoke = {
  async "marketapi-server"(ctx) {
    const failures = [];
    const server = ctx.startServer(ctx.binPath("marketapi-server"), []);
    try {
      const url = await server.started;
      const ping = await fetch(`${url}/api/v3/ping`);
      const depth = await fetch(`${url}/api/v3/depth?symbol=BTCUSDT&limit=5`);
      const book = await depth.json();
      if (ping.status !== 200) failures.push(`GET /api/v3/ping answered ${ping.status}`);
      if (depth.status !== 200 || !Array.isArray(book.bids) || book.bids.length === 0) {
        failures.push(`GET /api/v3/depth answered ${depth.status} ${JSON.stringify(book).slice(0, 200)}`);
      }
      const code = await server.stop();
      if (code !== 0) failures.push(`marketapi-server exited ${code} on SIGTERM:\n${server.output()}`);
    } finally {
      await server.stop();
    }
    const state = await ctx.runBin("marketapi-server", ["--state", "state.db", "--port", "0"]);
    const want = "install it with: npm i better-sqlite3@12";
    const lines = state.stderr.trim().split("\n");
    if (state.code !== 2 || lines.length !== 1 || !lines[0]?.includes(want)) {
      failures.push(
        ctx.transcript(
          `marketapi-server --state without better-sqlite3 (want exit 2 and one line: ${want})`,
          state,
        ),
      );
    }
    return failures;
  },
};
