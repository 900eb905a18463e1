/**
 * The state database's writer thread. It owns the only writing connection and applies each batch
 * of writes in one transaction (WAL; the commit is durable when it answers), so
 * the main thread never waits for the disk: it keeps serving while a batch commits, and acknowledges
 * the orders of a batch only when this thread reports the batch committed (group commit).
 */
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { loadDriver, type Statement } from "./driver.js";
import { WRITES, type WriteName, type WriteOp } from "./rows.js";
import { decodeBatch, type WriterData, type WriterReply, type WriterRequest } from "./writer-protocol.js";

const port = parentPort;
if (!port) throw new Error("writer.ts runs as a worker thread");

const { path, sync } = workerData as WriterData;
const Driver = loadDriver();
const db = new Driver(path, { fileMustExist: true, timeout: 10_000 });
db.pragma("journal_mode = WAL");
// In WAL mode both keep the database consistent; NORMAL leaves the fsync to checkpoints, so a commit
// is in the operating system's hands (safe from a crash of this process) when it returns.
db.pragma(`synchronous = ${sync === "full" ? "FULL" : "NORMAL"}`);
const statements = new Map<WriteName, Statement>();
for (const [name, sql] of Object.entries(WRITES)) statements.set(name as WriteName, db.prepare(sql));

const opened = statSync(path);

/** SQLite would go on writing to a deleted or replaced file, which no restart would find again. */
function checkStillThere(): void {
  let now: ReturnType<typeof statSync> | undefined;
  try {
    now = statSync(path);
  } catch {
    now = undefined;
  }
  if (!now || now.ino !== opened.ino || now.dev !== opened.dev) {
    throw Object.assign(new Error("the state file was deleted or replaced while the server ran"), {
      code: "MOVED",
    });
  }
}

const apply = db.transaction((ops: WriteOp[]) => {
  checkStillThere();
  for (const [name, ...params] of ops) (statements.get(name) as Statement).run(...params);
});

port.on("message", (request: WriterRequest) => {
  if ("close" in request) {
    db.close();
    port.postMessage({ seq: request.seq, ok: true } satisfies WriterReply);
    return;
  }
  try {
    apply(decodeBatch(request.ops));
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
