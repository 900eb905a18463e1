/**
 * Checks of the `--state` path before SQLite touches it, so that each storage fault at start-up is
 * one clear sentence and nothing about the file changes before a refusal: a missing or read-only
 * folder, something that is not a regular file, a file of the old JSON format, a file that is not
 * a state database, a truncated or empty database, a file with a second name (hard link), a
 * companion file (log, shared memory, lock) that is a link or not a regular file.
 *
 * The path is resolved first (`resolveStatePath`): SQLite opens a database by its path with every
 * symbolic link resolved and keeps its write-ahead log and shared memory beside that path, so
 * every name of one file must lead to the same companions, and every check and lock here is made
 * on the resolved path.
 */
import {
  closeSync,
  type FSWatcher,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
  watch,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { asideLinksOf } from "./leftovers.js";
import { StateFileError } from "./state-file-error.js";

export type StateFileKind = "absent" | "sqlite" | "legacy-json";

const SQLITE_MAGIC = "SQLite format 3\u0000";

/** The folder of the `--state` path must exist (the server creates files in it, not folders). */
export function inspectFolder(path: string): void {
  const folder = dirname(path);
  const folderStat = statOrUndefined(folder);
  if (!folderStat) throw new StateFileError(`state file ${path}: the folder ${folder} does not exist`);
  if (!folderStat.isDirectory()) throw new StateFileError(`state file ${path}: ${folder} is not a folder`);
}

/**
 * The state file as SQLite opens it: symbolic links resolved, the folder's too. A link to nothing
 * is refused (SQLite would create the file at the link's target). A path that does not exist yet
 * is resolved through its folder.
 */
export function resolveStatePath(path: string): string {
  const link = lstatOrUndefined(path);
  if (!link) {
    inspectFolder(path);
    return join(realpathSync(dirname(path)), basename(path));
  }
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (link.isSymbolicLink() && (code === "ENOENT" || code === "ENOTDIR"))
      throw new StateFileError(
        `state file ${path}: is a symbolic link to a file that does not exist; give the path of the state file itself`,
      );
    throw new StateFileError(`state file ${path}: cannot be examined (${(error as Error).message})`);
  }
}

/**
 * The names SQLite and this server give a state file's companions: its write-ahead log, its
 * shared memory (WAL index) and its lock file.
 */
export function companionsOf(path: string): { wal: string; shm: string; lock: string } {
  return { wal: `${path}-wal`, shm: `${path}-shm`, lock: `${path}.lock` };
}

/**
 * A state file has one name, and its companions are plain files of their own. SQLite keeps the
 * log beside the name a database is opened by, so a second name (a hard link) would give the
 * same database a second log; a companion that is a link would send SQLite's writes, or the lock's
 * pragmas, to another file (the state file itself, when a lock file links to it). Checked before
 * anything is opened, on the resolved path (see resolveStatePath).
 */
export function checkNames(path: string): void {
  const file = lstatOrUndefined(path);
  // A creation or a backup killed right after linking the file into place left its aside name on
  // it: not a name anyone gave it, and removed with the other leftovers once the lock is held.
  const names = file && file.nlink > 1 ? file.nlink - asideLinksOf(path, file).length : 1;
  if (file && names > 1)
    throw new StateFileError(
      `state file ${path}: has ${names} names (hard links): SQLite keeps a database's write-ahead log beside the name it is opened by, so each name would have a log of its own. Keep one name: remove the others (find them with: find / -xdev -samefile ${path})`,
    );
  const { wal, shm, lock } = companionsOf(path);
  for (const [companion, what] of [
    [wal, "write-ahead log"],
    [shm, "shared memory (WAL index)"],
    [lock, "lock file"],
  ] as const) {
    const stat = lstatOrUndefined(companion);
    if (!stat) continue;
    const fault = stat.isSymbolicLink()
      ? "is a symbolic link"
      : !stat.isFile()
        ? "is not a regular file"
        : stat.nlink > 1
          ? `has ${stat.nlink} names (hard links)`
          : file && stat.ino === file.ino && stat.dev === file.dev
            ? "is the state file itself"
            : undefined;
    if (fault)
      throw new StateFileError(
        `state file ${path}: its ${what} ${companion} ${fault}; it must be a file of its own or absent. Nothing was changed: remove ${companion}, then start again`,
      );
  }
}

export function inspectStatePath(path: string): StateFileKind {
  inspectFolder(path);
  const stat = statOrUndefined(path);
  if (!stat) return "absent";
  if (!stat.isFile()) throw new StateFileError(`state file ${path}: is not a regular file`);
  // The server creates a state file whole (written aside, then linked into place), so an empty
  // one is not a new exchange: it lost its contents.
  if (stat.size === 0)
    throw new StateFileError(
      `state file ${path}: is empty (0 bytes), so it is damaged: a state database this server wrote is never empty; move it away to start a new exchange`,
    );
  const head = readHead(path, 100);
  if (head.subarray(0, 16).toString("latin1") === SQLITE_MAGIC) {
    checkNotTruncated(path, head, stat.size);
    return "sqlite";
  }
  if (/^\s*\{/.test(head.toString("utf8"))) return "legacy-json";
  throw new StateFileError(`state file ${path}: is neither a marketapi state database nor a JSON state file`);
}

/**
 * The database header states the file's size in pages; a shorter file lost its end. Only checked
 * when no write-ahead log is waiting to be applied (a crash during a checkpoint may leave the file
 * short, and the log then completes it).
 */
function checkNotTruncated(path: string, header: Buffer, size: number): void {
  const wal = statOrUndefined(`${path}-wal`);
  if (wal && wal.size > 0) return;
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = header.readUInt32BE(28);
  const valid = header.readUInt32BE(24) === header.readUInt32BE(92);
  if (valid && pages > 0 && size < pages * pageSize) {
    throw new StateFileError(
      `state file ${path}: is truncated: its header says ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes) but the file has ${size} bytes`,
    );
  }
}

function readHead(path: string, bytes: number): Buffer {
  const buffer = Buffer.alloc(bytes);
  const fd = openSync(path, "r");
  try {
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function statOrUndefined(path: string): Stats | undefined {
  return examined(path, statSync);
}

function lstatOrUndefined(path: string): Stats | undefined {
  return examined(path, lstatSync);
}

function examined(path: string, stat: (path: string) => Stats): Stats | undefined {
  try {
    return stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new StateFileError(`state file ${path}: cannot be examined (${(error as Error).message})`);
  }
}

/** A sentence for an SQLite error, by its code. */
export function describeSqliteError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const code = e.code ?? "";
  const detail = e.message ?? String(error);
  if (code.startsWith("SQLITE_CANTOPEN")) return `cannot be opened or created (${detail})`;
  if (code.startsWith("SQLITE_READONLY"))
    return `cannot be written: it or its folder is read-only (${detail})`;
  if (code === "SQLITE_FULL") return `cannot be written: the disk is full (${detail})`;
  if (code === "SQLITE_NOTADB") return `is not a database: it is corrupt or another kind of file (${detail})`;
  if (code.startsWith("SQLITE_CORRUPT")) return `is corrupt (${detail})`;
  if (code.startsWith("SQLITE_IOERR")) return `cannot be read or written: input/output error (${detail})`;
  if (code === "MOVED" || code === "FOREIGN_COMMIT") return `cannot be written: ${detail}`;
  if (code === "DAMAGED") return detail;
  if (code === "SQLITE_PERM" || code === "SQLITE_AUTH")
    return `cannot be written: permission denied (${detail})`;
  return detail;
}

/**
 * A check that the file at `path` is still the one open now: SQLite would go on writing to a
 * deleted or replaced file, which no restart would find again. Throws an Error with code MOVED.
 */
export function fileIdentity(
  path: string,
  message = "the state file was deleted or replaced while the server ran",
): () => void {
  const opened = statSync(path);
  return () => {
    let now: ReturnType<typeof statSync> | undefined;
    try {
      now = statSync(path);
    } catch {
      now = undefined;
    }
    if (!now || now.ino !== opened.ino || now.dev !== opened.dev) {
      throw Object.assign(new Error(message), {
        code: "MOVED",
      });
    }
  };
}

/**
 * The same check, made only when the file may have changed: a watch on the file (inotify) marks it
 * suspect on any event (a deletion or a rename over it changes its link count; SQLite's own
 * checkpoints write it), and `check` reads the file's identity only then, or on every call when
 * the file cannot be watched. A stat on every commit cost as much as a fifth of the commit's own
 * work in JavaScript. The kernel queues the event as the file changes and the event loop takes it
 * in before its next commits, so a deletion is found by the commits of the turns after it; one in
 * the middle of a turn's commit may go unseen by that commit, as one between the stat and the
 * commit always could.
 */
export function watchedFileIdentity(path: string, message?: string): { check(): void; close(): void } {
  const stillThere = fileIdentity(path, message);
  let suspect = true;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path, { persistent: false }, () => {
      suspect = true;
    });
    watcher.on("error", () => {
      suspect = true;
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    watcher = undefined;
  }
  return {
    check() {
      if (watcher && !suspect) return;
      stillThere();
      suspect = false;
    },
    close() {
      watcher?.close();
      watcher = undefined;
    },
  };
}
