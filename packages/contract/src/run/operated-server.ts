/**
 * A server the tester runs as its operator would: the user's command, with `{state}` and `{port}`
 * put in, started in a folder of the tester's, watched for readiness (its ping answers), killed
 * with SIGKILL or stopped with SIGTERM, and given a smaller file-size limit while it runs (a disk
 * that fills up, as `prlimit` sets it). Used by `marketapi-contract custody` (run/custody.ts).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { portHolder } from "./port-holder.js";

/** How a process ended: its exit code, or the signal that ended it. */
export interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface OperatedServer {
  /** The process the command line started: the leader of its process group. */
  readonly pid: number;
  /** Every process of its group now: the server may be a child of a shell or of npx. */
  pids(): number[];
  readonly url: string;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  /** kill -9, as a crash or a power cut of the process would; resolves when it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone, saying whether SIGKILL was needed. */
  stop(graceMs: number): Promise<{ forced: boolean }>;
  /** Resolves when the process ends, however. */
  readonly ended: Promise<Ending>;
}

/** A start that served (`ready`), or one that ended or hung without serving, with what it printed. */
export type Start =
  | { ready: true; server: OperatedServer }
  | { ready: false; ending: Ending | undefined; output: string; server: OperatedServer };

export interface Launch {
  /** The user's command: `{state}` is replaced by the state file's name, `{port}` by a free port. */
  command: string;
  state: string;
  cwd: string;
  /** The path whose 200 says the server serves (the spec's ping). */
  readyPath: string;
  /** How long a start may take before it counts as hung. */
  startTimeoutMs: number;
  /** Called once the command runs, before it serves: what watches it meanwhile. */
  onSpawn?: (server: OperatedServer) => void;
  /**
   * No file may grow at all (a soft file-size limit of 0, set by the shell before the command
   * runs): a disk full from the start. Lifted later with limitFileSize.
   */
  noRoom?: boolean;
}

/** The command with its placeholders filled in, each value quoted for the shell. */
export function commandLine(command: string, values: { state: string; port: number }): string {
  const missing = ["{state}", "{port}"].filter((p) => !command.includes(p));
  if (missing.length > 0)
    throw new Error(
      `the server command must hold ${missing.join(" and ")} where the state file and the port go, got ${JSON.stringify(command)}`,
    );
  return command.replaceAll("{state}", shellQuoted(values.state)).replaceAll("{port}", String(values.port));
}

function shellQuoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A port nothing listens on at this moment (another process could take it before the server does). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** How long the output of a command whose process ended may still take to arrive (see launchOn). */
const OUTPUT_AFTER_EXIT_MS = 10_000;

/** How many ports a start is given when another program takes the one handed out before the server listens on it. */
export const PORT_TRIES = 3;

/**
 * Starts the command and waits until it serves, ends, or runs out of time. Serving is a 200 to
 * the ready path from a process of the command (portHolder): where another program took the
 * port first, the command is started again on another port, at most PORT_TRIES times.
 */
export async function launch(spec: Launch): Promise<Start> {
  const taken: number[] = [];
  for (;;) {
    const port = await freePort();
    const started = await launchOn(spec, port);
    if (!("portTaken" in started)) return started;
    taken.push(port);
    if (taken.length >= PORT_TRIES) return portsTaken(started.portTaken, taken);
  }
}

/** A start whose port another program listens on: the command's process has ended (it could not listen there) or was killed. */
interface PortTaken {
  portTaken: OperatedServer;
}

/** One start on `port`. */
async function launchOn(spec: Launch, port: number): Promise<Start | PortTaken> {
  const url = `http://127.0.0.1:${port}`;
  // A process group of its own: a signal reaches the server whatever the command line wraps it in
  // (an environment assignment, npx, a script).
  const line = commandLine(spec.command, { state: spec.state, port });
  const child = spawn("/bin/sh", ["-c", spec.noRoom ? `ulimit -S -f 0 && ${line}` : line], {
    cwd: spec.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  let ending: Ending | undefined;
  const ended = new Promise<Ending>((resolve) => {
    child.once("exit", (code, signal) => {
      const end = () => {
        clearTimeout(timer);
        ending ??= { code, signal };
        resolve(ending);
      };
      // Its last output arrives with "close", once every process holding its pipes has ended; one
      // that left its group (setsid, a daemon) may hold them for ever, and is not waited for.
      const timer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        end();
      }, OUTPUT_AFTER_EXIT_MS);
      child.once("close", end);
    });
    // No shell to run the command in (spawn failed): said as the start's output, exit code 127.
    child.once("error", (error) => {
      printed += `cannot run /bin/sh: ${error.message}\n`;
      ending = { code: 127, signal: null };
      resolve(ending);
    });
  });
  const server = operated(child, url, () => printed, ended);
  spec.onSpawn?.(server);
  const deadline = Date.now() + spec.startTimeoutMs;
  const takenByAnother = () => portHolder(port, server.pids()) === "another";
  while (ending === undefined && Date.now() < deadline) {
    if (takenByAnother()) break;
    // Asked again after the answer: the port may have been taken meanwhile.
    if ((await answers(`${url}${spec.readyPath}`)) && !takenByAnother()) return { ready: true, server };
    await Promise.race([ended, pause(100)]);
  }
  const killedByTester = ending?.signal === "SIGKILL";
  if (!killedByTester && takenByAnother()) {
    // It cannot listen where another program does: it ends by itself, or is stopped at the deadline.
    await endedWithin(ended, deadline - Date.now());
    await server.kill();
    return { portTaken: server };
  }
  if (ending === undefined) await server.kill();
  return { ready: false, ending: ending?.signal === "SIGKILL" ? undefined : ending, output: printed, server };
}

/** A start given up after every port handed out was taken by another program before the server listened. */
function portsTaken(last: OperatedServer, ports: readonly number[]): Start {
  const said = `marketapi-contract: another program listened on each port handed to the command before it did (${ports.join(", ")}): ports are short on this machine, or the command hands its port to a process outside its own process group\n`;
  return { ready: false, ending: undefined, output: `${last.output()}${said}`, server: last };
}

function operated(
  child: ChildProcess,
  url: string,
  output: () => string,
  ended: Promise<Ending>,
): OperatedServer {
  const group = child.pid ?? -1;
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) signalGroup(group, name);
    await ended;
  };
  return {
    pid: group,
    url,
    output,
    ended,
    pids: () => groupMembers(group),
    kill: () => signal("SIGKILL"),
    stop: async (graceMs) => {
      let forced = false;
      const timer = setTimeout(() => {
        forced = true;
        signalGroup(group, "SIGKILL");
      }, graceMs);
      await signal("SIGTERM");
      clearTimeout(timer);
      return { forced };
    },
  };
}

function signalGroup(group: number, name: NodeJS.Signals): void {
  try {
    process.kill(-group, name);
  } catch {
    // Gone already.
  }
}

/** The program a process runs, as `ps` names it (the last part of argv[0]); undefined off Linux. */
export function programOf(pid: number): string | undefined {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000")[0] ?? "";
    return argv0.split("/").at(-1) || undefined;
  } catch {
    return undefined;
  }
}

/** The processes of the group (Linux's /proc: field 5 of stat); elsewhere the leader alone. */
export function groupMembers(group: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [group];
  }
  const members: number[] = [];
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The command may hold spaces and parentheses: the fields start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === group) members.push(Number(pid));
    } catch {
      // Ended meanwhile.
    }
  }
  return members.length > 0 ? members : [group];
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Waits for `ended`, at most `ms` (no timer left behind once it has ended). */
async function endedWithin(ended: Promise<Ending>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sets the soft limit on the size of the files a running process may write (RLIMIT_FSIZE, with
 * `prlimit`, Linux's util-linux): a write past it fails as on a full disk (EFBIG). The hard limit
 * is left alone, so `undefined` can lift the soft one again. Resolves with why it could not.
 */
export function limitFileSize(pid: number, bytes: number | undefined): Promise<string | undefined> {
  const soft = bytes === undefined ? "unlimited" : String(bytes);
  return new Promise((resolve) => {
    execFile("prlimit", ["--pid", String(pid), `--fsize=${soft}:`], (error, _stdout, stderr) => {
      resolve(error ? `prlimit: ${stderr.trim() || error.message}` : undefined);
    });
  });
}

/**
 * The files (descriptors: files, sockets, pipes) the processes hold open, from /proc (Linux), or
 * undefined where it cannot be read for one of them.
 */
export function openFileCount(pids: readonly number[]): number | undefined {
  let count = 0;
  for (const pid of pids) {
    try {
      count += readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      return undefined;
    }
  }
  return count;
}
