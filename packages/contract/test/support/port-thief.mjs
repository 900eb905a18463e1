// A server command for operated-server.test.ts: `node port-thief.mjs PORT MARKER PIDS`. While the
// file MARKER is absent it does what another program on a busy machine does to a start: a process
// outside the command's process group (its own session) takes PORT and answers 200 "another" to
// everything; the command then cannot listen and ends, as a server does on EADDRINUSE. MARKER
// present: it serves 200 "ours" on PORT itself. "always" as MARKER: it never serves. The other
// program's pid is appended to PIDS, for the test to stop it.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const [port, marker, pids, role] = process.argv.slice(2);

function serve(answer) {
  createServer((_, res) => res.end(answer)).listen(Number(port), "127.0.0.1", () => {
    if (role === "another") process.stdout.write("listening\n");
  });
}

if (role === "another") {
  appendFileSync(pids, `${process.pid}\n`);
  serve("another");
} else if (marker !== "always" && existsSync(marker)) {
  serve("ours");
} else {
  if (marker !== "always") writeFileSync(marker, "");
  const other = spawn(process.execPath, [process.argv[1], port, marker, pids, "another"], {
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  other.stdout.on("data", () => {
    process.stderr.write(`listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`);
    process.exit(1);
  });
}
