/**
 * `marketapi-contract custody --server "COMMAND"`: the state file in the server's custody, judged
 * as its operator sees it. The tester starts the command itself, with `{state}` and `{port}` put
 * in, on files of its own, and does to them what other programs and machines do
 * (run/custody.ts): a second server on the file by other names, the file deleted, moved or
 * replaced while served, damaged before a start, a disk that fills up, a stop while orders
 * arrive, work that ends. What it holds: an order acknowledged is there at the next start on the
 * same path; a refusal ends the start, names the path (and the process holding the file) and
 * loses nothing; work that ended leaves nothing open.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT, parseCommandLine, wholeNumberOption } from "@marketapi/command";
import { loadOpenApi } from "@marketapi/spec";
import { UsageError } from "./core/errors.js";
import { buildContractModel } from "./core/operations.js";
import { CannotRun, type CustodyContext, SCENARIOS } from "./run/custody.js";
import type { OperatedServer } from "./run/operated-server.js";
import type { Finding } from "./run/persistence.js";
import { DEFAULT_TIMEOUT_MS } from "./runner.js";

/** The check's name in the report. */
export const CUSTODY = "custody";

export const CUSTODY_USAGE = `Usage: marketapi-contract custody --server COMMAND [--api-key K --api-secret S]
                           [--only SCENARIO] [--history N] [--start-timeout MS] [--stop-timeout MS] [--timeout MS]
                           [--keep] [--json]
  Starts COMMAND (a shell command line holding {state} and {port}, such as
  "marketapi-server --state {state} --port {port}") on state files of its own in a new folder, and
  judges what the operator of a durable server relies on: a second server on the file, by the
  same name or another (a symbolic or hard link), is refused at start, naming the path and the
  process that holds it; an order acknowledged is there after kill -9 and a start on the same
  path, also when the file was deleted, renamed or replaced while served or the disk was full
  (no order acknowledged then that the next start would not know); a damaged file is refused at
  start, naming the path, and left as it was; with room again on the disk, orders are taken again.
  A stop (SIGTERM) while orders arrive takes no new work (each client may have at most two
  orders it sent after the signal taken), refuses with 503 or closes the connection, ends the
  server within --stop-timeout (default: the start timeout), and loses nothing it acknowledged.
  --history N (default 0, not tried) places N orders on one symbol, cancelled in bunches, and
  holds that the first, a middle one and the last are found by their client order ids, before and
  after kill -9 and a start (a cache of recent client order ids that loses old ones shows).
  Scenarios: ${SCENARIOS.map((s) => s.name).join(", ")}. --keep leaves the folder, and says where.
  Exit: 0 everything held, 1 something did not (the server's fault), 2 usage, 3 the command could
  not be run or served nothing where nothing was done to its file.
`;

export interface CustodyOptions {
  command: string;
  apiKey: string;
  apiSecret: string;
  only?: string[];
  timeoutMs?: number;
  startTimeoutMs?: number;
  /** How long a server may take to end after SIGTERM (default: the start timeout). */
  stopTimeoutMs?: number;
  /** Orders of the long history scenario (default 0: not tried). */
  history?: number;
  keep?: boolean;
  spec?: Record<string, unknown>;
}

export interface CustodyResult {
  check: typeof CUSTODY;
  command: string;
  exitCode: 0 | 1 | 2 | 3;
  held: number;
  findings: Finding[];
  notes: string[];
  /** The folder the state files were in, when kept. */
  folder?: string;
  error?: string;
}

/** How long a server may take to serve, or to refuse, a start. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

const CUSTODY_OPTIONS = {
  server: { type: "string" },
  "api-key": { type: "string" },
  "api-secret": { type: "string" },
  only: { type: "string", multiple: true },
  timeout: { type: "string" },
  "start-timeout": { type: "string" },
  "stop-timeout": { type: "string" },
  history: { type: "string" },
  keep: { type: "boolean", default: false },
  json: { type: "boolean", default: false },
} as const;

export function parseCustody(argv: readonly string[]): CustodyOptions & { json: boolean } {
  const parsed = parseCommandLine(argv, CUSTODY_OPTIONS, { allowPositionals: false });
  const v = parsed.values;
  if (!v.server)
    throw new UsageError(
      "--server COMMAND is required: the command line that starts the server, with {state} and {port}",
    );
  for (const placeholder of ["{state}", "{port}"])
    if (!v.server.includes(placeholder))
      throw new UsageError(
        `--server must hold ${placeholder}, where the tester puts the ${placeholder === "{state}" ? "state file" : "port"}; got ${JSON.stringify(v.server)}`,
      );
  const apiKey = v["api-key"] ?? process.env.MARKETAPI_API_KEY;
  const apiSecret = v["api-secret"] ?? process.env.MARKETAPI_API_SECRET;
  if (!apiKey || !apiSecret)
    throw new UsageError(
      "custody places orders to keep: give --api-key and --api-secret (or MARKETAPI_API_KEY, MARKETAPI_API_SECRET)",
    );
  const known = SCENARIOS.map((s) => s.name);
  for (const name of v.only ?? [])
    if (!known.includes(name))
      throw new UsageError(`--only takes a scenario (${known.join(", ")}), got ${JSON.stringify(name)}`);
  return {
    command: v.server,
    apiKey,
    apiSecret,
    json: v.json,
    keep: v.keep,
    ...(v.only ? { only: v.only } : {}),
    ...(v.timeout !== undefined ? { timeoutMs: wholeNumberOption("--timeout", v.timeout, 1) } : {}),
    ...(v["stop-timeout"] !== undefined
      ? { stopTimeoutMs: wholeNumberOption("--stop-timeout", v["stop-timeout"], 1) }
      : {}),
    ...(v.history !== undefined ? { history: wholeNumberOption("--history", v.history) } : {}),
    ...(v["start-timeout"] !== undefined
      ? { startTimeoutMs: wholeNumberOption("--start-timeout", v["start-timeout"], 1) }
      : {}),
  };
}

export async function runCustody(options: CustodyOptions): Promise<CustodyResult> {
  const result: CustodyResult = {
    check: CUSTODY,
    command: options.command,
    exitCode: 0,
    held: 0,
    findings: [],
    notes: [],
  };
  const root = mkdtempSync(join(tmpdir(), "marketapi-custody-"));
  const context: CustodyContext = {
    command: options.command,
    model: buildContractModel(options.spec ?? loadOpenApi()),
    credentials: { apiKey: options.apiKey, apiSecret: options.apiSecret },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    stopTimeoutMs: options.stopTimeoutMs ?? options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    history: options.history ?? 0,
    root,
    running: new Set<OperatedServer>(),
  };
  try {
    for (const scenario of SCENARIOS) {
      if (options.only && !options.only.includes(scenario.name)) continue;
      const judged = await scenario.run(context);
      result.findings.push(...judged.findings);
      result.held += judged.held;
      result.notes.push(...judged.notes);
    }
    result.exitCode = result.findings.length > 0 ? EXIT.fault : EXIT.ok;
  } catch (error) {
    result.error = (error as Error).message;
    result.exitCode = error instanceof UsageError ? EXIT.usage : EXIT.failed;
    if (!(error instanceof UsageError || error instanceof CannotRun))
      result.error = `internal: ${result.error}`;
  } finally {
    await Promise.all([...context.running].map((server) => server.kill()));
    if (options.keep) result.folder = root;
    else rmSync(root, { recursive: true, force: true });
  }
  return result;
}

/** The report: one line per finding, naming the scenario. */
export function custodyText(result: CustodyResult): string {
  const lines = [
    `${result.exitCode === 0 ? "✓" : "✗"} ${CUSTODY.padEnd(20)} ${result.held} held, ${result.findings.length} did not · ${result.command}`,
  ];
  result.findings.forEach((f, i) => {
    lines.push(`${String(i + 1).padStart(4)}) ${f.subject}: ${f.message}`);
  });
  for (const note of result.notes) lines.push(`   note: ${note}`);
  if (result.folder) lines.push(`   the state files are kept in ${result.folder}`);
  if (result.error) lines.push(`error: ${result.error}`);
  lines.push(`exit ${result.exitCode}`);
  return `${lines.join("\n")}\n`;
}
