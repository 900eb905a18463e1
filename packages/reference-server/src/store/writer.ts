/**
 * The state database's writer thread, with its own connection (WAL). With sync "full" it applies
 * each batch of writes in one transaction and fsyncs it, so the main thread never waits for the
 * disk: it keeps serving while a batch commits, and acknowledges the orders of a batch only when
 * this thread reports the batch committed (group commit). With sync "normal" the main thread
 * commits (no fsync) and this thread runs the checkpoints, which copy the WAL into the database
 * and fsync, so they never stall the main thread either.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CommitFence, counted } from "./commit-fence.js";
import { distrustSchema, loadDriver, usePageCache } from "./driver.js";
import { fileIdentity } from "./files.js";
import { lockFileMoved } from "./lock.js";
import type { WriteOp } from "./rows.js";
import { writeRunner } from "./write-runner.js";
import { decodeBatch, type WriterData, type WriterReply, type WriterRequest } from "./writer-protocol.js";

const port = parentPort;
if (!port) throw new Error("writer.ts runs as a worker thread");

/**
 * WAL pages past which a checkpoint makes the next commit wait for the frames committed while it
 * ran (RESTART), so that the WAL starts over and stays bounded (start-up reads all of it).
 */
const RESTART_AFTER_PAGES = 16_384;
/** How long a RESTART checkpoint waits for the write lock and for readers (it blocks commits meanwhile). */
const RESTART_PATIENCE_MS = 200;

const { path, lockPath, sync, ours } = workerData as WriterData;
const Driver = loadDriver();
// In WAL mode once the main thread accepts the file (see open.ts): nothing here writes before.
const db = new Driver(path, { fileMustExist: true, timeout: 10_000 });
distrustSchema(db);
usePageCache(db);
// In WAL mode both keep the database consistent; NORMAL leaves the fsync to checkpoints, so a commit
// is in the operating system's hands (safe from a crash of this process) when it returns.
db.pragma(`synchronous = ${sync === "full" ? "FULL" : "NORMAL"}`);
const run = writeRunner(db);

const stateFileThere = fileIdentity(path);
const lockFileThere = fileIdentity(lockPath, lockFileMoved(lockPath));
const checkStillThere = () => {
  stateFileThere();
  lockFileThere();
};

// With sync "full" this thread alone commits, and sees another program's commits itself; with
// "normal" the main thread commits the batches and is told of this thread's commits.
const fence = sync === "full" ? new CommitFence(db, path) : undefined;
const transaction = db.transaction((ops: WriteOp[]) => {
  checkStillThere();
  fence?.check();
  run(ops);
});
const apply = (ops: WriteOp[]) => counted(sync === "normal" ? ours : undefined, () => transaction(ops));

function checkpoint(): void {
  checkStillThere();
  const [passive] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number; checkpointed: number }[];
  // A PASSIVE checkpoint that copied every frame it saw still leaves the WAL where it was when the
  // main thread commits meanwhile (under load it always does): SQLite starts the WAL over only at
  // a write that finds every frame copied, so the WAL would grow for as long as the load lasts.
  // RESTART copies the few frames committed during the PASSIVE one and makes the next commit start
  // the WAL over (its file stays, so the next frames overwrite pages the file already has).
  if (!passive || passive.log <= RESTART_AFTER_PAGES) return;
  // Frames left uncopied: a reader holds an older snapshot (a backup's VACUUM INTO). RESTART would
  // wait for it holding the write lock, and every commit with it; the WAL grows until the reader
  // is done instead, and starts over at the next checkpoint.
  if (passive.checkpointed < passive.log) return;
  // Should such a reader start between the two, RESTART gives up soon rather than hold the commits.
  db.pragma(`busy_timeout = ${RESTART_PATIENCE_MS}`);
  try {
    db.pragma("wal_checkpoint(RESTART)");
  } finally {
    db.pragma("busy_timeout = 10000");
  }
}

port.on("message", (request: WriterRequest) => {
  if ("close" in request) {
    db.close();
    port.postMessage({ seq: request.seq, ok: true } satisfies WriterReply);
    return;
  }
  try {
    if ("checkpoint" in request) checkpoint();
    else if ("fence" in request) fence?.start();
    else apply(decodeBatch(request.ops));
    port.postMessage({ seq: request.seq, ok: true } satisfies WriterReply);
  } catch (error) {
    const e = error as { message?: string; code?: string };
    port.postMessage({
      seq: request.seq,
      ok: false,
      error: String(e.message ?? error),
      code: String(e.code ?? ""),
    } satisfies WriterReply);
  }
});
port.postMessage({ seq: 0, ok: true } satisfies WriterReply);
