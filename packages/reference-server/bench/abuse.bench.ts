// Fair service under a pipelining attack: CONNECTIONS connections from 127.0.0.1 and 127.0.0.2
// each send PIPELINED exchangeInfo requests in one go and never read an answer, while a bystander on
// 127.0.0.3 sends pings one after the other on a keep-alive connection. Reports the bystander's
// latency (p50 / p99 / max), the server's RSS before, at its peak, and 2 s after the attackers
// close, and how many answers the attackers were served (from the used-weight header).
// Run: npm run bench:abuse (in packages/reference-server). ABUSE_CONNECTIONS, ABUSE_PIPELINED,
// ABUSE_SECONDS change the sizes. The server runs from source (tsx), in its own process.
import { Agent } from "node:http";
import { loadavg } from "node:os";
import { baseUrlOf, runCli } from "../test/support/cli.js";
import { send } from "../test/support/http.js";
import { memoryOf, pipeliningAttack } from "../test/support/pipelining-attack.js";

const CONNECTIONS = Number(process.env.ABUSE_CONNECTIONS ?? 500);
const PIPELINED = Number(process.env.ABUSE_PIPELINED ?? 2000);
const SECONDS = Number(process.env.ABUSE_SECONDS ?? 10);
const MB = 1024 * 1024;

const agentFrom = (localAddress: string) =>
  new Agent({ keepAlive: true, maxSockets: 1, localAddress } as never);

async function main(): Promise<void> {
  const run = runCli(["--port", "0"]);
  try {
    const url = await baseUrlOf(run);
    await report(url, run.child.pid as number);
  } finally {
    run.child.kill("SIGKILL");
    await run.exited;
  }
}

async function report(url: string, pid: number): Promise<void> {
  const bystander = agentFrom("127.0.0.3");
  for (let i = 0; i < 50; i += 1) await send(url, { path: "/api/v3/exchangeInfo" }, bystander);
  const before = await memoryOf(pid);
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const pinging = (async () => {
    while (running) {
      const started = performance.now();
      const r = await send(url, { path: "/api/v3/ping" }, bystander).catch(() => undefined);
      if (r?.status === 200) latencies.push(performance.now() - started);
      else failures += 1;
    }
  })();
  const attack = await pipeliningAttack(url, {
    connections: CONNECTIONS,
    requestsPerConnection: PIPELINED,
    addresses: ["127.0.0.1", "127.0.0.2"],
  });
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  running = false;
  await pinging;
  const during = await memoryOf(pid);
  await attack.stop();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const after = await memoryOf(pid);
  let served = 0;
  for (const address of ["127.0.0.1", "127.0.0.2"]) {
    const r = await send(url, { path: "/api/v3/time" }, agentFrom(address));
    served += Math.max(0, Number(r.headers["x-mbx-used-weight-1m"]) - 1) / 20;
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN;
  const ms = (value: number) => value.toFixed(1);
  console.log(
    `attack: ${CONNECTIONS} connections × ${PIPELINED} pipelined exchangeInfo, never read; ${SECONDS} s; load average ${loadavg()[0]?.toFixed(1)}`,
  );
  console.log(
    "| bystander pings | p50 ms | p99 ms | max ms | failed | RSS before | RSS peak | RSS after | attacker answers served |",
  );
  console.log("| --: | --: | --: | --: | --: | --: | --: | --: | --: |");
  console.log(
    `| ${latencies.length} | ${ms(at(0.5))} | ${ms(at(0.99))} | ${ms(at(1) || latencies.at(-1) || NaN)} | ${failures} | ` +
      `${Math.round(before.rss / MB)} MB | ${Math.round(Math.max(during.peak, after.peak) / MB)} MB | ${Math.round(after.rss / MB)} MB | ` +
      `${served} of ${CONNECTIONS * PIPELINED} |`,
  );
}

await main();
