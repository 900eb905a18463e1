/**
 * What every custody scenario stands on (run/custody.ts): the context of a run, the folders, the
 * starts of the user's server command (run/operated-server.ts), what a start that should have been
 * refused must show, and the errors that end a scenario or the run.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ContractModel } from "../core/operations.js";
import type { Credentials } from "../http/request.js";
import {
  type Ending,
  type Launch,
  launch,
  type OperatedServer,
  programOf,
  type Start,
} from "./operated-server.js";
import type { Judgement } from "./persistence.js";

/** The state file's name in each scenario's folder. */
export const STATE_NAME = "state.db";

export interface CustodyContext {
  command: string;
  model: ContractModel;
  credentials: Credentials;
  timeoutMs: number;
  startTimeoutMs: number;
  /** How long a server may take to end after SIGTERM. */
  stopTimeoutMs: number;
  /** Orders of the long history (0: not tried). */
  history: number;
  /** A folder of the tester's; each scenario works in a folder of its own inside it. */
  root: string;
  /** Servers still running, so that a scenario that throws leaves none behind. */
  running: Set<OperatedServer>;
}

/** The scenario cannot go on: the server would not serve, or take an order, where it should. */
export class CustodyStop extends Error {}

/** The command does not give a serving server on a new state file: nothing can be judged. */
export class CannotRun extends Error {}

export function judgement(): Judgement {
  return { findings: [], held: 0, notes: [] };
}

export function folder(context: CustodyContext, name: string): string {
  const dir = join(context.root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A start of the command on `state` in `cwd`; one that has not served within the start timeout
 * is killed. `onSpawn` watches it from its launch; `noRoom` starts it on a full disk.
 */
export async function start(
  context: CustodyContext,
  cwd: string,
  state: string,
  how: Pick<Launch, "onSpawn" | "noRoom"> = {},
): Promise<Start> {
  const readyPath = context.model.operation("ping")?.path ?? "/";
  const started = await launch({
    command: context.command,
    state,
    cwd,
    readyPath,
    startTimeoutMs: context.startTimeoutMs,
    ...how,
  });
  context.running.add(started.server);
  void started.server.ended.then(() => context.running.delete(started.server));
  return started;
}

/** A start that must serve: the state file is the server's own, untouched by anyone else. */
export async function serving(
  context: CustodyContext,
  cwd: string,
  state: string,
  why: string,
): Promise<OperatedServer> {
  const started = await start(context, cwd, state);
  if (started.ready) return started.server;
  throw new CustodyStop(
    `the server did not serve ${why} (${endingText(started.ending, context)}): ${lastLines(started.output)}`,
  );
}

/** The first start of a scenario, on a new state file: where it does not serve, nothing can be judged. */
export async function firstStart(context: CustodyContext, cwd: string): Promise<OperatedServer> {
  const started = await start(context, cwd, STATE_NAME);
  if (started.ready) return started.server;
  throw new CannotRun(
    `the command did not give a server that answers ping on a new state file (${endingText(started.ending, context)}): ${lastLines(started.output)}`,
  );
}

export function endingText(ending: Ending | undefined, context: CustodyContext): string {
  if (ending === undefined) return `no answer to ping within ${context.startTimeoutMs} ms`;
  return ending.signal ? `ended by ${ending.signal}` : `exit code ${ending.code}`;
}

export function lastLines(output: string): string {
  const text = output.trim().split("\n").slice(-3).join(" / ");
  return text === "" ? "it printed nothing" : text.length > 400 ? `…${text.slice(-400)}` : text;
}

/** Whether the refusal of a start names `text`, as a whole word where it is a number. */
export function names(output: string, text: string): boolean {
  return /^\d+$/.test(text) ? new RegExp(`(^|\\D)${text}(\\D|$)`).test(output) : output.includes(text);
}

/**
 * What is wrong with a start the server should have refused: it must end, non-zero, naming the
 * path it was given and, where `holders` lists them, one of the processes that hold the file, by
 * its pid and its program (as `ps` shows them: whom to stop).
 */
export function refusalProblems(
  started: Extract<Start, { ready: false }>,
  path: string,
  context: CustodyContext,
  holders: readonly number[] = [],
): string[] {
  if (started.ending === undefined)
    return [`neither served nor ended within ${context.startTimeoutMs} ms: a refusal must end the start`];
  if (started.ending.code === 0 || started.ending.code === null)
    return [
      `ended with ${endingText(started.ending, context)} without serving: a refusal is a non-zero exit code`,
    ];
  const problems: string[] = [];
  const said = started.output;
  if (!names(said, path))
    problems.push(`its refusal does not name the path it was given (${path}): ${lastLines(said)}`);
  const holder = holders.find((pid) => names(said, String(pid)));
  if (holders.length > 0 && holder === undefined)
    problems.push(
      `its refusal does not name the process that holds the file (pid ${holders.join(" or ")}): ${lastLines(said)}`,
    );
  const program = holder === undefined ? undefined : programOf(holder);
  if (program !== undefined && !said.includes(program))
    problems.push(`its refusal names pid ${holder} but not its program (${program}): ${lastLines(said)}`);
  return problems;
}

/**
 * What a refusal of a value the server never writes leaves unsaid: what arrived and what a
 * server takes there, as every error of ours says them.
 */
export function quoteProblems(
  output: string,
  quote: { arrived: string; expected: string } | undefined,
): string[] {
  if (!quote) return [];
  const unsaid = [
    ["what arrived", quote.arrived],
    ["what a server takes", quote.expected],
  ].filter(([, word]) => !names(output, word!));
  return unsaid.map(([what, word]) => `its refusal does not say ${what} (${word}): ${lastLines(output)}`);
}

export async function stopAll(context: CustodyContext): Promise<void> {
  await Promise.all([...context.running].map((server) => server.kill()));
}

/** Whether the server made a file at the path; where it did not, what needs one is not tried, and said. */
export function madeFile(dir: string, what: string, out: Judgement): boolean {
  if (existsSync(join(dir, STATE_NAME))) return true;
  out.notes.push(`${what}: not tried, the server made no file at ${STATE_NAME}`);
  return false;
}

/**
 * Runs a scenario's body: a CustodyStop ends it as a finding under `subject`; whatever happens,
 * no server it started is left running.
 */
export async function judged(
  context: CustodyContext,
  subject: string,
  body: (out: Judgement) => Promise<void>,
  out: Judgement = judgement(),
): Promise<Judgement> {
  try {
    await body(out);
  } catch (error) {
    if (!(error instanceof CustodyStop)) throw error;
    out.findings.push({ subject, message: error.message });
  } finally {
    await stopAll(context);
  }
  return out;
}
