// The read path's ceiling (bench/ceiling.bench.ts): a bare node:http server answering each path
// with a fixed JSON body, the same bytes the reference server answered for it. argv: PORT BODIES
// where BODIES is a JSON object from path (with query) to body.
import { createServer } from "node:http";

const [port, bodies] = process.argv.slice(2);
const byPath = new Map(Object.entries(JSON.parse(bodies ?? "{}") as Record<string, string>));

createServer((req, res) => {
  const body = byPath.get(req.url ?? "");
  if (body === undefined) res.writeHead(404).end();
  else res.writeHead(200, { "Content-Type": "application/json" }).end(body);
}).listen(Number(port), "127.0.0.1", () => process.send?.("ready"));
process.on("message", (message: string) => {
  if (message === "reset") return;
  if (message === "report") process.send?.({ maxStallMs: 0, p99Ms: 0 });
});
process.on("SIGTERM", () => process.exit(0));
