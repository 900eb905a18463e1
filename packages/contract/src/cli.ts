#!/usr/bin/env node
/** marketapi-contract: the command-line front of runContract. */
import { writeFileSync } from "node:fs";
import { UsageError } from "./errors.js";
import { type CliOptions, parseCli, USAGE } from "./options.js";
import { replayCommand } from "./replay.js";
import { junitXml } from "./report/junit.js";
import { progressLine, reportText, type TextStyle } from "./report/text.js";
import type { ContractResult } from "./results.js";
import { runContract } from "./runner.js";

/**
 * A run that could not reach the server, or was refused before its first check: a table of
 * skipped cells and a 0-passed summary would only repeat the error.
 */
function reachedNothing(result: ContractResult): boolean {
  if (result.error === undefined || result.error.kind === "interrupted") return false;
  return result.error.during === "start-up" || result.summary.passed === 0;
}

function exit(code: number): void {
  process.exitCode = code;
  // Keep-alive sockets must not hold the process open once everything is written.
  setTimeout(() => process.exit(code), 200).unref();
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === "replay") return replayMain(argv.slice(1));
  let cli: CliOptions;
  try {
    cli = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`marketapi-contract: ${error.message}\n`);
    exit(2);
    return;
  }
  if (cli.help) {
    process.stdout.write(USAGE);
    exit(0);
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

  const result = await runContract({
    ...cli.contract,
    signal: controller.signal,
    onProgress: (event) => progressStream.write(`${progressLine(event, style)}\n`),
  });

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
  exit(2);
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
