/**
 * `marketapi-server backup` and `marketapi-server restore`: copies of a state database, taken
 * while a server serves it, and put back in place while none does (see store/backup.ts).
 * Exit codes: 0 done, 2 for bad arguments or a state file refused (in use, damaged, missing its
 * log, an existing output), 1 otherwise.
 */
import { parseArgs } from "node:util";
import { StateFileError } from "./persistence.js";
import { backupStateFile, type CopyReport, restoreStateFile } from "./store/backup.js";

export const STATE_COMMANDS_USAGE = `Commands:
  marketapi-server backup --state FILE --out COPY
                       copy the state database FILE to COPY (which must not exist) while a
                       server serves it: one consistent snapshot, checked to load
  marketapi-server restore --from COPY --state FILE [--accept-missing-wal]
                       put a copy of COPY in place of FILE, which no server may be serving; the
                       file it replaces is kept as FILE.replaced-TIME; --accept-missing-wal takes
                       a COPY whose write-ahead log is missing as it is (losing its last commits)
`;

class UsageError extends Error {}

export type StateCommand = "backup" | "restore";

export function isStateCommand(word: string | undefined): word is StateCommand {
  return word === "backup" || word === "restore";
}

/** Runs the command; resolves with the exit code. */
export async function runStateCommand(command: StateCommand, argv: string[]): Promise<number> {
  let report: CopyReport;
  try {
    const args = parseCommand(command, argv);
    if (args === "help") {
      process.stdout.write(STATE_COMMANDS_USAGE);
      return 0;
    }
    report =
      command === "backup"
        ? await backupStateFile(args.state, args.out as string)
        : await restoreStateFile(args.from as string, args.state, {
            acceptMissingWal: args.acceptMissingWal,
          });
  } catch (error) {
    const usage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`marketapi-server ${command}: ${(error as Error).message}\n`);
    if (usage) process.stderr.write(`\n${STATE_COMMANDS_USAGE}`);
    return usage || error instanceof StateFileError ? 2 : 1;
  }
  process.stdout.write(`${describe(command, report)}\n`);
  return 0;
}

interface CommandArgs {
  state: string;
  out?: string;
  from?: string;
  acceptMissingWal: boolean;
}

function parseCommand(command: StateCommand, argv: string[]): CommandArgs | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options:
      command === "backup"
        ? { state: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } }
        : {
            state: { type: "string" },
            from: { type: "string" },
            "accept-missing-wal": { type: "boolean" },
            help: { type: "boolean", short: "h" },
          },
  });
  if (values.help) return "help";
  const needed = command === "backup" ? ["state", "out"] : ["from", "state"];
  const missing = needed.filter((name) => typeof values[name as keyof typeof values] !== "string");
  if (missing.length > 0)
    throw new UsageError(`needs ${missing.map((name) => `--${name} FILE`).join(" and ")}`);
  return {
    state: values.state as string,
    out: values.out as string | undefined,
    from: values.from as string | undefined,
    acceptMissingWal: values["accept-missing-wal"] === true,
  };
}

function describe(command: StateCommand, report: CopyReport): string {
  const what = `schema version ${report.schemaVersion}, ${count(report.orders)} orders, ${count(report.trades)} trades, ${(report.bytes / 1024 / 1024).toFixed(1)} MiB, in ${(report.ms / 1000).toFixed(1)} s`;
  if (command === "backup") return `Backed up ${report.from} to ${report.to} (${what}).`;
  const kept = report.replaced ? `; the file it replaced is kept as ${report.replaced}` : "";
  return `Restored ${report.to} from ${report.from} (${what})${kept}.`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
