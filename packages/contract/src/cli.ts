#!/usr/bin/env node
/** marketapi-contract: the command-line front of runContract. */
import { readFileSync, writeFileSync } from "node:fs";
import { EXIT, InputFault, parseJsonFile, reportUsage } from "@marketapi/command";
import { UsageError } from "./core/errors.js";
import { CUSTODY_USAGE, custodyText, parseCustody, runCustody } from "./custody.js";
import { endpointTarget } from "./endpoint.js";
import { type CliOptions, parseCli, SHORT_USAGE, USAGE } from "./options.js";
import { parseRecall, RECALL_USAGE, recallText, runRecall } from "./recall.js";
import { replayCommand } from "./replay.js";
import { junitXml } from "./report/junit.js";
import { progressLine, reportText, type TextStyle } from "./report/text.js";
import type { ContractResult } from "./result.js";
import { runContract } from "./runner.js";

/**
 * A run that could not reach the server, or was refused before its first check: a table of
 * skipped cells and a 0-passed summary would only repeat the error.
 */
function reachedNothing(result: ContractResult): boolean {
  if (result.error === undefined || result.error.kind === "interrupted") return false;
  return result.error.during === "start-up" || result.summary.passed === 0;
}

/**
 * The command's exit code, by @marketapi/command's table: a usage error 2; a server that cannot
 * be reached or answers no API, the run's deadline, orders not confirmed cancelled, or an internal
 * error 3 (the command could not do its job); contract failures 1.
 */
export function exitCodeOf(result: ContractResult): ContractResult["exitCode"] {
  switch (result.error?.kind) {
    case undefined:
      return result.exitCode;
    case "usage":
      return EXIT.usage;
    case "interrupted":
      return EXIT.interrupted;
    default:
      return EXIT.failed;
  }
}

/**
 * An --endpoint record at fault (unreadable, not JSON, not a usable Endpoint) is the input's
 * fault: said with its line and column where it has one, exit 1, before anything is sent.
 */
function endpointFault(file: string): string | undefined {
  try {
    endpointTarget(parseJsonFile(readFileSync(file, "utf8"), file), Date.now(), `Endpoint ${file}`);
    return undefined;
  } catch (error) {
    if (error instanceof InputFault || error instanceof UsageError) return error.message;
    return `${file}: cannot be read: ${(error as Error).message}`;
  }
}

function exit(code: number): void {
  process.exitCode = code;
  // Keep-alive sockets must not hold the process open once everything is written.
  setTimeout(() => process.exit(code), 200).unref();
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === "replay") return replayMain(argv.slice(1));
  if (argv[0] === "recall") return recallMain(argv.slice(1));
  if (argv[0] === "custody") return custodyMain(argv.slice(1));
  let cli: CliOptions;
  try {
    cli = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    exit(reportUsage("marketapi-contract", error.message, SHORT_USAGE));
    return;
  }
  if (cli.help) {
    process.stdout.write(USAGE);
    exit(0);
    return;
  }
  const badEndpoint =
    typeof cli.contract.endpoint === "string" ? endpointFault(cli.contract.endpoint) : undefined;
  if (badEndpoint !== undefined) {
    process.stderr.write(`marketapi-contract: ${badEndpoint}\n`);
    exit(EXIT.fault);
    return;
  }
  const progressStream = cli.json ? process.stderr : process.stdout;
  const style: TextStyle = {
    color: progressStream.isTTY === true && !process.env.NO_COLOR,
  };
  const controller = new AbortController();
  let interrupts = 0;
  process.on("SIGINT", () => {
    interrupts += 1;
    if (interrupts > 1) {
      process.stderr.write("marketapi-contract: interrupted twice; exiting without clean-up\n");
      process.exit(130);
    }
    process.stderr.write(
      "\nmarketapi-contract: interrupted; cancelling the orders this run created (Ctrl-C again to quit now)\n",
    );
    controller.abort();
  });
  process.on("SIGTERM", () => controller.abort());

  const ran = await runContract({
    ...cli.contract,
    signal: controller.signal,
    onProgress: (event) => progressStream.write(`${progressLine(event, style)}\n`),
  });
  const result: ContractResult = { ...ran, exitCode: exitCodeOf(ran) };

  if (cli.report) {
    try {
      writeFileSync(cli.report, junitXml(result));
    } catch (error) {
      process.stderr.write(
        `marketapi-contract: cannot write --report ${cli.report}: ${(error as Error).message}\n`,
      );
    }
  }
  if (cli.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else if (!reachedNothing(result)) {
    process.stdout.write("\n");
    // The error goes to stderr below, once; the summary keeps its exit line.
    const shown = result.error?.kind === "connection" ? { ...result, error: undefined } : result;
    process.stdout.write(
      reportText(shown, { color: process.stdout.isTTY === true && !process.env.NO_COLOR }),
    );
  }
  if (result.error)
    process.stderr.write(`marketapi-contract: ${result.error.kind} error: ${result.error.message}\n`);
  exit(result.exitCode);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`marketapi-contract: internal error: ${message.replace(/\s*\n\s*/g, " ")}\n`);
  exit(EXIT.failed);
});

async function replayMain(argv: readonly string[]): Promise<void> {
  try {
    process.stdout.write(await replayCommand(argv));
    exit(0);
  } catch (error) {
    process.stderr.write(`marketapi-contract replay: ${(error as Error).message}\n`);
    exit(2);
  }
}

async function recallMain(argv: readonly string[]): Promise<void> {
  let options: ReturnType<typeof parseRecall>;
  try {
    options = parseRecall(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    exit(reportUsage("marketapi-contract recall", error.message, RECALL_USAGE));
    return;
  }
  const result = await runRecall(options);
  const readNothing = result.error !== undefined && result.held === 0 && result.findings.length === 0;
  if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (!readNothing) process.stdout.write(recallText(result));
  if (result.error) process.stderr.write(`marketapi-contract recall: ${result.error}\n`);
  exit(result.exitCode);
}

async function custodyMain(argv: readonly string[]): Promise<void> {
  let options: ReturnType<typeof parseCustody>;
  try {
    options = parseCustody(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    exit(reportUsage("marketapi-contract custody", error.message, CUSTODY_USAGE));
    return;
  }
  const result = await runCustody(options);
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : custodyText(result));
  if (result.error) process.stderr.write(`marketapi-contract custody: ${result.error}\n`);
  exit(result.exitCode);
}
