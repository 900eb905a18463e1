// A server the tester starts is ready only when a process of its own command answers: another
// program that takes the port handed out first (a busy machine) is told apart by the sockets each
// process holds (Linux's /proc), and the command is started again on another port.
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { launch, PORT_TRIES } from "../src/run/operated-server.js";
import { listeningInodes, portHolder } from "../src/run/port-holder.js";

const thief = fileURLToPath(new URL("./support/port-thief.mjs", import.meta.url));
const onLinux = existsSync("/proc/net/tcp");

describe("listeningInodes: the sockets listening on a port, from a /proc/net/tcp text", () => {
  const header =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
  const line = (local: string, state: string, inode: string) =>
    `   0: ${local} 00000000:0000 ${state} 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 100 0 0 10 0`;
  const cases: Array<{ given: string; table: string[]; port: number; want: string[] }> = [
    {
      given: "listening on 127.0.0.1",
      table: [line("0100007F:1F90", "0A", "101")],
      port: 8080,
      want: ["101"],
    },
    {
      given: "listening on every address",
      table: [line("00000000:1F90", "0A", "102")],
      port: 8080,
      want: ["102"],
    },
    {
      given: "tcp6, listening on ::",
      table: [line("00000000000000000000000000000000:1F90", "0A", "103")],
      port: 8080,
      want: ["103"],
    },
    {
      given: "a connection from the port, not a listener",
      table: [line("0100007F:1F90", "01", "104")],
      port: 8080,
      want: [],
    },
    { given: "another port", table: [line("0100007F:1F91", "0A", "105")], port: 8080, want: [] },
    { given: "the header alone", table: [], port: 8080, want: [] },
  ];
  it.each(cases)("$given → $want", ({ table, port, want }) => {
    expect(listeningInodes([header, ...table].join("\n"), port)).toEqual(want);
  });
});

describe.runIf(onLinux)("on this machine", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it("portHolder: this process's listener is ours, another's for other pids, nobody's once closed", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as { port: number };
    expect(portHolder(port, [process.pid])).toBe("ours");
    expect(portHolder(port, [])).toBe("another");
    await new Promise((resolve) => server.close(resolve));
    expect(portHolder(port, [process.pid])).toBe("nobody");
  });

  /** A folder for the thief's marker and the pids of its other programs, stopped when the test ends. */
  function thiefFolder(): { marker: string; pids: string; folder: string } {
    const folder = mkdtempSync(join(tmpdir(), "port-thief-"));
    const pids = join(folder, "pids");
    cleanups.push(() => {
      const listed = existsSync(pids) ? readFileSync(pids, "utf8").split("\n").filter(Boolean) : [];
      for (const pid of listed) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      rmSync(folder, { recursive: true, force: true });
    });
    return { marker: join(folder, "started-once"), pids, folder };
  }

  const command = (marker: string, pids: string) =>
    `'${process.execPath}' '${thief}' {port} '${marker}' '${pids}' # {state}`;

  it("a port another program took first is not the server's: started again on another port, where it serves", async () => {
    const { marker, pids, folder } = thiefFolder();
    const started = await launch({
      command: command(marker, pids),
      state: "state.db",
      cwd: folder,
      readyPath: "/ping",
      startTimeoutMs: 60_000,
    });
    cleanups.push(() => void started.server.kill());
    expect(started.ready, started.server.output()).toBe(true);
    const answer = await fetch(`${started.server.url}/ping`);
    expect(await answer.text()).toBe("ours");
    expect(readFileSync(pids, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it(`a port taken at each of ${PORT_TRIES} starts: no start, and the output says why`, async () => {
    const { pids, folder } = thiefFolder();
    const started = await launch({
      command: command("always", pids),
      state: "state.db",
      cwd: folder,
      readyPath: "/ping",
      startTimeoutMs: 60_000,
    });
    if (started.ready) throw new Error("served, though another program held each port");
    expect(started.output).toMatch(
      /another program listened on each port handed to the command before it did \(\d+, \d+, \d+\)/,
    );
    expect(readFileSync(pids, "utf8").trim().split("\n")).toHaveLength(PORT_TRIES);
  });

  it("a command that ends leaving a process of another session on its output: the ending is seen, not waited on for ever", async () => {
    const { pids, folder } = thiefFolder();
    const started = await launch({
      // The background process takes the shell's output pipes with it into a session of its own.
      command: `setsid sleep 600 & echo $! >> '${pids}'; echo refused; exit 3 # {state} {port}`,
      state: "state.db",
      cwd: folder,
      readyPath: "/ping",
      startTimeoutMs: 60_000,
    });
    if (started.ready) throw new Error("served, though the command only exits");
    expect(started.ending).toEqual({ code: 3, signal: null });
    expect(started.output).toBe("refused\n");
  });
});
