/**
 * `marketapi-server backup` and `marketapi-server restore`: copies of a state database, taken
 * while a server serves it, and put back in place while none does (see store/backup.ts).
 * Exit codes (@marketapi/command's table): 0 done; 2 a usage error, or a state file refused (in
 * use by a server, damaged, missing its log, a schema that is not this server's, an output that
 * exists), as `marketapi-server --state` refuses one, each naming the file and the fault.
 */
import { EXIT, parseCommandLine, reportUsage, UsageError } from "@marketapi/command";
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

const SHORT_USAGE = {
  backup: "Usage: marketapi-server backup --state FILE --out COPY (all commands: marketapi-server --help)",
  restore:
    "Usage: marketapi-server restore --from COPY --state FILE [--accept-missing-wal] (all commands: marketapi-server --help)",
} as const;

export type StateCommand = keyof typeof SHORT_USAGE;

export function isStateCommand(word: string | undefined): word is StateCommand {
  return word === "backup" || word === "restore";
}

/** Runs the command; resolves with the exit code. */
export async function runStateCommand(command: StateCommand, argv: string[]): Promise<number> {
  let args: CommandArgs | "help";
  try {
    args = parseCommand(command, argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsage(`marketapi-server ${command}`, error, SHORT_USAGE[command]);
  }
  if (args === "help") {
    process.stdout.write(STATE_COMMANDS_USAGE);
    return EXIT.ok;
  }
  let report: CopyReport;
  // What the command removed on its way (leftovers of interrupted work), before its result.
  const logger = { warn: (line: string) => process.stderr.write(`${line}\n`) };
  try {
    report =
      command === "backup"
        ? await backupStateFile(args.state, args.out as string, { logger })
        : await restoreStateFile(args.from as string, args.state, {
            acceptMissingWal: args.acceptMissingWal,
            logger,
          });
  } catch (error) {
    // The commands name every fault as the state file's (store/state-file-error.ts namedAsGiven).
    process.stderr.write(`marketapi-server ${command}: ${(error as Error).message}\n`);
    return error instanceof StateFileError ? EXIT.usage : EXIT.failed;
  }
  process.stdout.write(`${describe(command, report)}\n`);
  return EXIT.ok;
}

interface CommandArgs {
  state: string;
  out?: string;
  from?: string;
  acceptMissingWal: boolean;
}

function parseCommand(command: StateCommand, argv: string[]): CommandArgs | "help" {
  const { values } = parseCommandLine(
    argv,
    command === "backup"
      ? { state: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } }
      : {
          state: { type: "string" },
          from: { type: "string" },
          "accept-missing-wal": { type: "boolean" },
          help: { type: "boolean", short: "h" },
        },
    { allowPositionals: false },
  );
  if (values.help) return "help";
  const needed = command === "backup" ? ["state", "out"] : ["from", "state"];
  const missing = needed.filter((name) => typeof values[name] !== "string");
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
