// A reference server for the durability bench, in its own process: started with or without a
// state database, it measures its own event loop (perf_hooks.monitorEventLoopDelay) and answers
// the bench over IPC: "reset" starts a measurement, "report" returns the longest stall since.
import { monitorEventLoopDelay } from "node:perf_hooks";

const [port, config, statePath, stateSync] = process.argv.slice(2);
const built = new URL("../dist/index.js", import.meta.url);
const { startServer } = (await import(
  (await import("node:fs")).existsSync(built) ? built.href : new URL("../src/index.ts", import.meta.url).href
)) as typeof import("../src/index.js");
const server = await startServer({
  port: Number(port),
  host: "127.0.0.1",
  seed: 1,
  config: JSON.parse(config ?? "{}"),
  ...(statePath ? { statePath, stateSync: stateSync === "full" ? "full" : "normal" } : {}),
});
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
process.on("message", (message: string) => {
  if (message === "reset") loop.reset();
  if (message === "report") {
    process.send?.({ maxStallMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 });
  }
});
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
process.send?.("ready");
