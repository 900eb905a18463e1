// Programs other than this release's server that open a state file and write it, each a process
// of its own: the release before (previous-release.ts: plain SQLite in WAL mode, no lock, no
// claim) and an SQLite shell (Python's sqlite3 module: another build of SQLite). Each prints one
// JSON line per event; `event` waits for the next one of a kind, failing with the program's output
// when it exits first.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const PREVIOUS_RELEASE = fileURLToPath(new URL("./previous-release.ts", import.meta.url));

export interface ForeignWriter {
  child: ChildProcess;
  /** The next event of this kind (its JSON object). */
  event(kind: string): Promise<Record<string, unknown>>;
  /** A command on its standard input. */
  send(command: string): void;
  exited: Promise<number | string>;
}

/** The release before the claim, serving `path` (see previous-release.ts). */
export function previousRelease(path: string): ForeignWriter {
  return watch(
    spawn(process.execPath, ["--import", "tsx", PREVIOUS_RELEASE, path], {
      cwd: PACKAGE_DIR,
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
}

/**
 * An SQLite shell (Python's sqlite3) that opens `path`, runs `sql` and commits it, says ready,
 * and keeps the file open until told `close`.
 */
export function sqliteShell(path: string, sql: string): ForeignWriter {
  const script = [
    "import json, sqlite3, sys",
    "db = sqlite3.connect(sys.argv[1], timeout=10)",
    "db.execute(sys.argv[2])",
    "db.commit()",
    "print(json.dumps({'event': 'ready'}), flush=True)",
    "for line in sys.stdin:",
    "    if line.strip() == 'close':",
    "        db.close()",
    "        print(json.dumps({'event': 'closed'}), flush=True)",
    "        break",
  ].join("\n");
  return watch(spawn("python3", ["-c", script, path, sql], { stdio: ["pipe", "pipe", "pipe"] }));
}

function watch(child: ChildProcess): ForeignWriter {
  const events: Record<string, unknown>[] = [];
  const waiting: { kind: string; resolve(event: Record<string, unknown>): void }[] = [];
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (let end = out.indexOf("\n"); end >= 0; end = out.indexOf("\n")) {
      const line = out.slice(0, end);
      out = out.slice(end + 1);
      if (line.trim() === "") continue;
      events.push(JSON.parse(line) as Record<string, unknown>);
      deliver();
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => {
      resolve(code ?? signal ?? "unknown");
      for (const waiter of waiting.splice(0)) waiter.resolve({ event: "exited", code, signal, stderr: err });
    });
  });
  function deliver(): void {
    for (const waiter of [...waiting]) {
      const at = events.findIndex((event) => event.event === waiter.kind);
      if (at < 0) continue;
      const [event] = events.splice(at, 1);
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(event as Record<string, unknown>);
    }
  }
  return {
    child,
    exited,
    event: async (kind) => {
      const event = await new Promise<Record<string, unknown>>((resolve) => {
        waiting.push({ kind, resolve });
        deliver();
        if (child.exitCode !== null || child.signalCode !== null)
          resolve({ event: "exited", code: child.exitCode, stderr: err });
      });
      if (event.event !== kind) throw new Error(`the program exited before "${kind}": ${err}`);
      return event;
    },
    send: (command) => {
      child.stdin?.write(`${command}\n`);
    },
  };
}
