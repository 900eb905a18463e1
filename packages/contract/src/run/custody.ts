/**
 * The state file in the server's custody, judged as its operator sees it (`marketapi-contract
 * custody`): the tester starts the user's server command itself, on files of its own, and does to
 * them what other programs and machines do. Every scenario holds one promise, that an order the
 * server acknowledged is there at the next start on the same path, and the operator's side of it:
 * - one writer, whatever name opens it: a second server on the file (by the same name, another
 *   spelling of it, a symbolic link, a hard link) is refused at start, naming the path it was
 *   given and the process that holds the file, while the first goes on serving and keeping;
 * - the file taken away under a running server (deleted, renamed away, replaced by a copy): no
 *   order is acknowledged that the next start on the path would not know;
 * - a damaged file at start (cut short, a page zeroed, text in its place, a value altered):
 *   refused, naming the path (and what arrived), and every file left as it was;
 * - kill -9 during a first start: the path stays usable;
 * - a full disk (a file-size limit set on the running server with `prlimit`): orders refused
 *   once nothing more can be written, every acknowledged one kept and no refused one, and orders
 *   taken again once there is room; a disk full from the first start: refused, and the path
 *   usable once there is room;
 * - a stop (SIGTERM) while orders arrive: no new work taken, refusals 503 (or the connection
 *   closed), the server ends, and what it acknowledged is kept; a long history (opt-in);
 * - open files: work that ended (orders on connections since closed) leaves none open.
 * The scenarios are in custody-file.ts (what is done to the file), custody-disk.ts (a full disk)
 * and custody-work.ts (a stop, open files, a long history).
 */
import type { CustodyContext } from "./custody-context.js";
import { fullDisk, fullDiskAtStart } from "./custody-disk.js";
import { damagedAtStart, killedStarting, oneWriter, takenAway } from "./custody-file.js";
import { gracefulStop, longHistory, openFiles } from "./custody-work.js";
import type { Judgement } from "./persistence.js";

export {
  CannotRun,
  type CustodyContext,
  CustodyStop,
  quoteProblems,
  refusalProblems,
} from "./custody-context.js";
export { newWorkProblems, stoppingRefusalProblems } from "./custody-work.js";

/** Every scenario, in the order a report lists them. */
export const SCENARIOS: ReadonlyArray<{ name: string; run(context: CustodyContext): Promise<Judgement> }> = [
  { name: "one writer", run: oneWriter },
  { name: "taken away", run: takenAway },
  { name: "damaged at start", run: damagedAtStart },
  { name: "killed while starting", run: killedStarting },
  { name: "full disk", run: fullDisk },
  { name: "full disk at start", run: fullDiskAtStart },
  { name: "graceful stop", run: gracefulStop },
  { name: "open files", run: openFiles },
  { name: "long history", run: longHistory },
];
