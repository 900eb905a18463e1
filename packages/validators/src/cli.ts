#!/usr/bin/env node
// marketapi-validate: checks Endpoint records, request parameters and response bodies from files.
// Exit codes (@marketapi/command's table): 0 everything valid, 1 something invalid (errors printed
// as file:path: message) or a file that cannot be read or parsed (located), 2 usage error
// (including an unknown operation), 3 an internal error.
import {
  EXIT,
  InputFault,
  parseCommandLine,
  parseJsonFile,
  reportUsage,
  UsageError,
  unknownWord,
} from "@marketapi/command";
import {
  InputError,
  MAX_INPUT_BYTES_ENV,
  maxInputBytes,
  parseJsonText,
  readTextFile,
} from "@marketapi/spec-loader/input";
import {
  operationIds,
  type ValidationResult,
  validateEndpoint,
  validateRequest,
  validateResponse,
} from "./index.js";

const SHORT_USAGE =
  "Usage: marketapi-validate endpoint FILE... | request OPERATION FILE [--query] | response OPERATION STATUS FILE [--variant NAME] (all options: --help)";

const USAGE = `Usage:
  marketapi-validate endpoint FILE...
  marketapi-validate request OPERATION FILE [--query]
  marketapi-validate response OPERATION STATUS FILE [--variant NAME]

  endpoint    each FILE holds one FHIR Endpoint record (JSON)
  request     FILE holds the operation's parameters as a JSON object, or with --query
              as query-string/form text (symbol=BTCUSDT&limit=5)
  response    FILE holds a response body (JSON) returned with STATUS (200, 404, ...)
  --variant   the body variant to check (new_order: ACK, RESULT or FULL)
  --json      print the results as JSON instead of text
  --max-input-bytes N
              refuse a FILE larger than N bytes (default 16 MiB, or ${MAX_INPUT_BYTES_ENV})
  FILE "-"    reads standard input

A FILE must be UTF-8 text, JSON nested at most 128 deep; anything else is unreadable input.
Exit codes (the same for every marketapi command): 0 all valid; 1 something invalid, or a FILE
that cannot be read or parsed (file, line and column); 2 usage error; 3 an internal error.`;

class UnreadableError extends Error {}

/** The cap on each FILE's size, set from --max-input-bytes before any FILE is read. */
let maxBytes = 0;

type Outcome = { file: string; result: ValidationResult } | { file: string; unreadable: string };

/** Validates one file; a file that cannot be read or parsed is an outcome too, not the end of the run. */
function attempt(file: string, validate: () => ValidationResult): Outcome {
  try {
    return { file, result: validate() };
  } catch (error) {
    if (error instanceof UnreadableError) return { file, unreadable: error.message };
    throw error;
  }
}

function readInput(file: string): string {
  try {
    return readTextFile(file, { maxBytes, kind: "JSON file" });
  } catch (error) {
    if (error instanceof InputError) throw new UnreadableError(error.message);
    throw error;
  }
}

function readJson(file: string): unknown {
  const text = readInput(file);
  try {
    return parseJsonText(text, file);
  } catch (error) {
    if (error instanceof InputError) throw new UnreadableError(error.message);
    // Not JSON: said again with the line and column where it stops being JSON.
    try {
      parseJsonFile(text, file);
    } catch (fault) {
      if (fault instanceof InputFault) throw new UnreadableError(fault.message);
    }
    throw new UnreadableError(`${file}: not JSON: ${(error as Error).message}`);
  }
}

function knownOperation(operation: string | undefined): string {
  if (operation === undefined) throw new UsageError("an OPERATION is required");
  if (!(operationIds as readonly string[]).includes(operation)) {
    throw new UsageError(unknownWord("operation", operation, operationIds));
  }
  return operation;
}

function run(argv: string[]): Outcome[] {
  const parsed = parseCommandLine(argv, {
    query: { type: "boolean", default: false },
    variant: { type: "string" },
    json: { type: "boolean", default: false },
    "max-input-bytes": { type: "string" },
    help: { type: "boolean", default: false },
  });
  try {
    maxBytes = maxInputBytes(parsed.values["max-input-bytes"] as string | undefined);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...rest] = parsed.positionals;
  const values = parsed.values as { query?: boolean; variant?: string };
  switch (command) {
    case "endpoint":
      if (rest.length === 0) throw new UsageError("endpoint needs at least one FILE");
      return rest.map((file) => attempt(file, () => validateEndpoint(readJson(file))));
    case "request": {
      if (rest.length !== 2) throw new UsageError("request needs OPERATION and FILE");
      const operation = knownOperation(rest[0]);
      const file = rest[1]!;
      return [
        attempt(file, () =>
          values.query
            ? validateRequest(operation, readInput(file).trim(), { from: "query" })
            : validateRequest(operation, readJson(file)),
        ),
      ];
    }
    case "response": {
      if (rest.length !== 3) throw new UsageError("response needs OPERATION, STATUS and FILE");
      const operation = knownOperation(rest[0]);
      const status = rest[1]!;
      const file = rest[2]!;
      const options = values.variant === undefined ? {} : { variant: values.variant };
      return [attempt(file, () => validateResponse(operation, status, readJson(file), options))];
    }
    case undefined:
      throw new UsageError("a command is required");
    default:
      throw new UsageError(unknownWord("command", command, ["endpoint", "request", "response"]));
  }
}

/** "file:/path: must be ..." (the message without its leading path), or "file: message" at the root. */
function formatError(file: string, path: string, message: string): string {
  if (path === "") return `${file}: ${message}`;
  const rest = message.startsWith(`${path} `) ? message.slice(path.length + 1) : message;
  return `${file}:${path}: ${rest}`;
}

export function main(argv: string[]): number {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  let outcomes: Outcome[];
  try {
    outcomes = run(argv);
  } catch (error) {
    if (error instanceof UsageError) return reportUsage("marketapi-validate", error, SHORT_USAGE);
    throw error;
  }
  if (argv.includes("--json")) {
    const report = outcomes.map((o) =>
      "result" in o ? { file: o.file, ...o.result } : { ...o, valid: false },
    );
    console.log(JSON.stringify(report, null, 2));
  } else {
    for (const outcome of outcomes) {
      if (!("result" in outcome)) console.error(`marketapi-validate: ${outcome.unreadable}`);
      else if (outcome.result.valid) console.log(`${outcome.file}: valid`);
      else for (const e of outcome.result.errors) console.error(formatError(outcome.file, e.path, e.message));
    }
  }
  return outcomes.every((o) => "result" in o && o.result.valid) ? EXIT.ok : EXIT.fault;
}

/** An internal error is reported in one line and exits 3: never 1, which means "invalid". */
function guarded(argv: string[]): number {
  try {
    return main(argv);
  } catch (error) {
    console.error(`marketapi-validate: internal error: ${(error as Error).message ?? error}`);
    return EXIT.failed;
  }
}

process.exitCode = guarded(process.argv.slice(2));
