/**
 * What an interrupted operation on a state file leaves beside it. Each writes its work aside,
 * under a name of its own made of the state file's name, what it is and its process id, and
 * removes it when it ends; killed before that (kill -9, a crash, a power loss), it leaves it:
 *
 * - FILE.creating-PID: a new state file being created (then linked into place);
 * - FILE.upgrade-trial-PID: the trial copy of an upgrade (as large as the file), with its log;
 * - FILE.schema-N-backup.partial-PID: the original of an upgrade being written;
 * - FILE.import-PID: a JSON state file being imported;
 * - FILE.restoring-PID: a backup being copied into place (`restore`), or a snapshot (the sandbox's
 *   restore and reset, made by the server that holds the lock);
 * - COPY.partial-PID: a backup being written (beside its output, not the state file).
 *
 * Each of the first five is made only under the state file's lock, so whoever holds the lock knows
 * that every one of them is a leftover, and removes them (start-up, restore), warning of what it
 * removed. A backup takes no lock: it removes the partial copies beside its output whose process
 * has ended, and so does a start on that output, a backup being a state file too. The folder FILE.snapshots (the sandbox's snapshots) is kept: it is no work aside.
 */
import { lstatSync, readdirSync, rmSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Logger } from "../logger.js";

/** Where the removal is told: a warning (something was interrupted). */
type Told = Pick<Logger, "warn">;

/** The kinds of work made aside under the state file's lock (see the module's comment). */
const UNDER_LOCK = /^(creating|upgrade-trial|schema-\d+-backup\.partial|import|restoring)-(\d+)(?:[.-].*)?$/;
/** A backup's partial copy beside its output. */
const PARTIAL_COPY = /^partial-(\d+)(?:[.-].*)?$/;

const WHAT: Record<string, string> = {
  creating: "a new state file being created",
  "upgrade-trial": "the trial copy of an upgrade",
  import: "a JSON state file being imported",
  restoring: "a backup being restored",
};

interface Leftover {
  path: string;
  what: string;
  pid: number;
  bytes: number;
}

/** Where a new state file for `path` is created before it is linked into place (open.ts). */
export function creationAside(path: string, pid: number = process.pid): string {
  return `${path}.creating-${pid}`;
}

/** Where a backup to `out` is written before it is linked into place (backup.ts). */
export function backupAside(out: string, pid: number = process.pid): string {
  return `${out}.partial-${pid}`;
}

/** The aside names that an operation links into place as its finished file (open.ts, backup.ts). */
const LINKED_INTO_PLACE = /^(creating|partial)-\d+$/;

/**
 * The names beside `path` that an operation killed between linking its work into place and
 * removing its aside name left on the file itself (`file`, its lstat): a creation's
 * FILE.creating-PID or a backup's COPY.partial-PID. They are no second name anyone gave the file,
 * and a start removes them with the other leftovers.
 */
export function asideLinksOf(path: string, file: { dev: number; ino: number }): string[] {
  const prefix = `${basename(path)}.`;
  return readdirSync(dirname(path)).filter((name) => {
    if (!name.startsWith(prefix) || !LINKED_INTO_PLACE.test(name.slice(prefix.length))) return false;
    const stat = lstatOrUndefined(join(dirname(path), name));
    return stat !== undefined && stat.dev === file.dev && stat.ino === file.ino;
  });
}

/** Removes the leftovers beside the state file at `path` (its lock held); tells `logger` what went. */
export function removeLeftovers(path: string, logger: Told): Leftover[] {
  const found = besides(path, UNDER_LOCK, (match) => ({
    what: WHAT[match[1] as string] ?? "the original of an upgrade being written",
    pid: Number(match[2]),
  }));
  report(path, found, logger);
  // A backup's partial copy beside a state file is one whose output the file is (see asideLinksOf).
  return [...found, ...removeStalePartials(path, logger)];
}

/** Removes the partial copies beside a backup's output `out` whose process has ended. */
export function removeStalePartials(out: string, logger: Told): Leftover[] {
  const found = besides(out, PARTIAL_COPY, (match) => ({
    what: "a backup being written",
    pid: Number(match[1]),
  })).filter((leftover) => !alive(leftover.pid));
  report(out, found, logger);
  return found;
}

function besides(
  path: string,
  pattern: RegExp,
  describe: (match: RegExpExecArray) => { what: string; pid: number },
): Leftover[] {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  const found: Leftover[] = [];
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(prefix)) continue;
    const match = pattern.exec(name.slice(prefix.length));
    if (!match) continue;
    const leftover = join(folder, name);
    found.push({ path: leftover, ...describe(match), bytes: sizeOf(leftover) });
  }
  for (const leftover of found) rmSync(leftover.path, { force: true, recursive: true });
  return found;
}

function report(path: string, found: readonly Leftover[], logger: Told): void {
  if (found.length === 0) return;
  const list = found
    .map(
      (leftover) =>
        `${basename(leftover.path)} (${leftover.what}, ${mib(leftover.bytes)}, process ${leftover.pid})`,
    )
    .join(", ");
  logger.warn(
    `Removed what interrupted work left beside ${path} (its process was stopped before it finished): ${list}.`,
  );
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
