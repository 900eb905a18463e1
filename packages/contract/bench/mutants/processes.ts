/**
 * The two processes of one trial: a reference server that loads one mutant in place of a built
 * file (loader.mjs), and a contract tester run as a black box against it by URL (its CLI with
 * --json; any tester build: the path of its cli.js is an option of the bench).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const LOADER = fileURLToPath(new URL("./loader.mjs", import.meta.url));

export interface MutantServer {
  url: string;
  apiKey: string;
  apiSecret: string;
  /** The sandbox's admin surface, when the server was started with --admin-port. */
  admin?: { url: string; token: string };
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** kill -9 at once, as a crash would; resolves when the process is gone. */
  kill(): Promise<void>;
  /** Whether the process ended before it was stopped (a mutant that crashed it mid-run). */
  exitedEarly(): boolean;
}

export type ServerStart = { ok: true; server: MutantServer } | { ok: false; reason: string };

export interface ServerLaunch {
  /** The server's cli.js. */
  cli: string;
  /** The mutated module: the built file it replaces and the JavaScript to load instead. */
  mutant?: { distFile: string; js: string };
  /** A folder for the mutant's JavaScript file. */
  scratch: string;
  /** Collect V8 coverage of the process into this folder (NODE_V8_COVERAGE). */
  coverageDir?: string;
  /** How long the banner may take. */
  startTimeoutMs: number;
  args?: string[];
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts the server on a free port and reads its URL and demo credentials from the banner. */
export function startServer(launch: ServerLaunch): Promise<ServerStart> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_V8_COVERAGE;
  const args = [LOADER, launch.cli, "--port", "0", ...(launch.args ?? [])];
  if (launch.mutant) {
    const file = join(launch.scratch, "mutant.js");
    writeFileSync(file, launch.mutant.js);
    Object.assign(env, mutantEnv(launch));
  }
  if (launch.coverageDir) env.NODE_V8_COVERAGE = launch.coverageDir;
  const child = spawn(process.execPath, ["--import", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  return new Promise<ServerStart>((resolve) => {
    let settled = false;
    const settle = (value: ServerStart) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const fail = (reason: string) => {
      child.kill("SIGKILL");
      settle({ ok: false, reason });
    };
    const timer = setTimeout(
      () => fail(`no banner within ${launch.startTimeoutMs} ms`),
      launch.startTimeoutMs,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /base URL\s+(\S+)/.exec(stdout)?.[1];
      const apiKey = /demo API key\s+(\S+)/.exec(stdout)?.[1];
      const apiSecret = /demo API secret\s+(\S+)/.exec(stdout)?.[1];
      const admin = /admin\s+(http\S+) \(Authorization: Bearer (\S+)\)/.exec(stdout);
      if (url && apiKey && apiSecret && /Press Ctrl\+C/.test(stdout)) {
        settle({
          ok: true,
          server: {
            url,
            apiKey,
            apiSecret,
            ...(admin ? { admin: { url: admin[1]!, token: admin[2]! } } : {}),
            exitedEarly: () => exited,
            async kill() {
              if (exited) return;
              child.kill("SIGKILL");
              await waitForExit(child);
            },
            async stop(graceMs = 10_000) {
              if (exited) return;
              child.kill("SIGTERM");
              const killer = setTimeout(() => child.kill("SIGKILL"), graceMs);
              await waitForExit(child);
              clearTimeout(killer);
            },
          },
        });
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code, signal) => {
      const last = stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
      fail(`the server exited (${signal ?? code}) before it answered${last ? `: ${last}` : ""}`);
    });
  });
}

export interface TesterVerdict {
  exitCode: number | null;
  /** Checks with a failed cell. */
  failedChecks: string[];
  /** Operations reported not implemented. */
  notImplemented: string[];
  error?: string;
  requests?: number;
  wallMs: number;
  /** What `recall` found changed (the first few), where it ran. */
  findings?: string[];
  /** The recall after a restart, in the state population (runRecall): its own verdict. */
  recall?: TesterVerdict;
  /** The operator's judgement of the state file, in the state population (runCustody). */
  custody?: TesterVerdict;
  /** Not run: the kill of this tester, carried (the bench's --survivors-of). */
  carriedFrom?: string;
}

/**
 * Runs `marketapi-contract recall FILE` against the restarted server: exit 0 everything a run
 * remembered held, 1 something changed (the failure names what), anything else an error. The
 * server's admin surface, when it has one, is given in MARKETAPI_ADMIN_URL and
 * MARKETAPI_ADMIN_TOKEN, with MARKETAPI_ALLOW_RESET=1 (a tester that does not read them recalls
 * as before).
 */
export function runRecall(
  cli: string,
  server: MutantServer,
  file: string,
  hardLimitMs: number,
): Promise<TesterVerdict> {
  return runCli(
    cli,
    ["recall", file, "--base-url", server.url, "--allow-trading", "--json"],
    server,
    hardLimitMs,
    undefined,
    (parsed) => (parsed.exitCode === 1 ? ["persistence"] : []),
    server.admin
      ? {
          MARKETAPI_ADMIN_URL: server.admin.url,
          MARKETAPI_ADMIN_TOKEN: server.admin.token,
          // The sandbox's reset judged too (its last step): the trial's server is thrown away after.
          MARKETAPI_ALLOW_RESET: "1",
        }
      : {},
  );
}

/** The demo account every reference server has (its banner prints it). */
const DEMO = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

/**
 * Runs `marketapi-contract custody` on the launch's server, mutant included: the tester starts
 * the server itself on state files of its own (the command below, with the mutant loaded the same
 * way) and judges the state file as its operator sees it. Exit 1 names check `custody`.
 */
export function runCustody(cli: string, launch: ServerLaunch, hardLimitMs: number): Promise<TesterVerdict> {
  const command = [process.execPath, "--import", LOADER, launch.cli, "--state", "{state}", "--port", "{port}"]
    .map((part) => (part.startsWith("{") ? part : `'${part}'`))
    .join(" ");
  return runCli(
    cli,
    ["custody", "--server", command, "--json"],
    DEMO,
    hardLimitMs,
    undefined,
    (parsed) => (parsed.exitCode === 1 ? ["custody"] : []),
    {
      ...(launch.mutant ? mutantEnv(launch) : {}),
      // The servers custody starts count as reached code of the null run, as the tested one does.
      ...(launch.coverageDir ? { NODE_V8_COVERAGE: launch.coverageDir } : {}),
    },
  );
}

/** What makes loader.mjs load the mutant in place of its built file (the file startServer wrote). */
function mutantEnv(launch: ServerLaunch): NodeJS.ProcessEnv {
  return {
    MARKETAPI_MUTANT_URL: pathToFileURL(launch.mutant!.distFile).href,
    MARKETAPI_MUTANT_JS: join(launch.scratch, "mutant.js"),
  };
}

/** Runs a tester's CLI against the server and reads its --json result. */
export function runTester(
  cli: string,
  server: MutantServer,
  seed: number,
  hardLimitMs: number,
  second?: { apiKey: string; apiSecret: string },
  /** More options of the tester (the load population's --load). */
  extra: readonly string[] = [],
): Promise<TesterVerdict> {
  const args = [
    "--base-url",
    server.url,
    "--allow-trading",
    "--reference-extras",
    "--seed",
    String(seed),
    "--json",
    "--max-time",
    String(Math.floor(hardLimitMs / 1000) - 30),
    ...extra,
  ];
  return runCli(cli, args, server, hardLimitMs, second, (parsed) => [
    ...new Set((parsed.cells ?? []).filter((c) => c.status === "failed").map((c) => c.check)),
  ]);
}

interface CliJson {
  exitCode?: number;
  cells?: Array<{ check: string; status: string }>;
  notImplemented?: Array<{ operationId: string }>;
  error?: { kind: string; message: string } | string;
  stats?: { requests: number };
  findings?: Array<{ subject: string; message: string }>;
}

function runCli(
  cli: string,
  args: readonly string[],
  server: Pick<MutantServer, "apiKey" | "apiSecret">,
  hardLimitMs: number,
  second: { apiKey: string; apiSecret: string } | undefined,
  failedChecksOf: (parsed: CliJson) => string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<TesterVerdict> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MARKETAPI_API_KEY: server.apiKey,
    MARKETAPI_API_SECRET: server.apiSecret,
    ...(second
      ? { MARKETAPI_SECOND_API_KEY: second.apiKey, MARKETAPI_SECOND_API_SECRET: second.apiSecret }
      : {}),
  };
  delete env.NODE_V8_COVERAGE;
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), hardLimitMs);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      const wallMs = performance.now() - started;
      let parsed: CliJson = {};
      try {
        parsed = JSON.parse(stdout);
      } catch {
        // no JSON: the tester crashed or was killed; the exit code and stderr say so.
      }
      const failedChecks = failedChecksOf(parsed).sort();
      const error =
        typeof parsed.error === "string"
          ? parsed.error
          : parsed.error !== undefined
            ? `${parsed.error.kind}: ${parsed.error.message}`
            : signal
              ? `tester killed (${signal}) after ${Math.round(wallMs / 1000)} s`
              : code !== 0 && code !== 1
                ? stderr.trim().split("\n").slice(-2).join(" | ").slice(0, 300)
                : undefined;
      resolve({
        exitCode: code,
        failedChecks,
        notImplemented: (parsed.notImplemented ?? []).map((n) => n.operationId),
        ...(error ? { error: error.slice(0, 300) } : {}),
        ...(parsed.stats ? { requests: parsed.stats.requests } : {}),
        ...(parsed.findings?.length
          ? { findings: parsed.findings.slice(0, 3).map((f) => `${f.subject}: ${f.message}`.slice(0, 200)) }
          : {}),
        wallMs,
      });
    });
  });
}
