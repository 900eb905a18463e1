// Runs the marketapi-server command as a child process: the built dist/cli.js, as installed (turbo
// builds before the tests; test/global-setup.ts builds a stale dist/ for a bare `npx vitest run`).
// Through tsx each start cost about 0.6 s of CPU more, over some 45 starts in this package.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

export function runCli(args: string[]): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Waits until the CLI printed its base URL; fails with its output if it exits first. No clock is
 * read: a loaded machine starts it late, and only the test's limit, set for hangs, stops a server
 * that never starts.
 */
export async function baseUrlOf(run: CliRun): Promise<string> {
  for (;;) {
    const match = /base URL\s+(http:\/\/\S+)/.exec(run.stdout());
    if (match?.[1]) return match[1];
    if (run.child.exitCode !== null || run.child.signalCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`The server did not start.\nstdout: ${run.stdout()}\nstderr: ${run.stderr()}`);
}

/** The exit code, or "started" (the server is stopped then) when it came up instead of exiting. */
export async function exitOrStart(run: CliRun): Promise<number | string> {
  const started = baseUrlOf(run).then(
    () => "started",
    () => undefined,
  );
  const outcome = await Promise.race([run.exited, started]);
  if (outcome === "started") {
    run.child.kill("SIGKILL");
    await run.exited;
  }
  return outcome ?? (await run.exited);
}
