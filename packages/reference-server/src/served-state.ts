/**
 * The state database a running server serves, as the pipeline and the sandbox hold it: it delegates
 * to the database open now, which the sandbox's restore and reset replace by a snapshot.
 *
 * A snapshot of a server with `--state` is a backup of its file (store/backup.ts: one consistent
 * read, taken while the server serves), kept in the folder `STATE.snapshots/` beside it as
 * `sN-TAKENAT.db`; `initial.db` there is the file as it was when the server started (what reset
 * brings back). The sandbox's own state (clock, market, added accounts) is in the file's `meta`
 * row, so it travels with the snapshot. Restoring one: new requests are held (http/hold.ts), the
 * file is closed with its lock kept, a checked copy of the snapshot takes its place, and the
 * database is opened again and its state swapped into the live exchange. The state file then is
 * the snapshot: a restart goes on from it.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Exchange } from "./engine/index.js";
import type { RequestHold } from "./http/hold.js";
import { backupStateFile, copyBeside, installCopy } from "./store/backup.js";
import { removeDatabase } from "./store/open.js";
import { StateDatabase, type StateSync, StorageFailure } from "./store/state-database.js";
import { StateFileError } from "./store/state-file-error.js";

export interface ServedStateOptions {
  path: string;
  now: () => number;
  retentionMs?: number | undefined;
  sync?: StateSync | undefined;
  onFailure?: (reason: string) => void;
  /** Holds new requests while the file is replaced. */
  hold: RequestHold;
}

/** A snapshot file's id and the sandbox time it was taken at. */
export interface SnapshotFile {
  id: string;
  takenAt: number;
}

/** Takes the meta values of the file brought back. */
export type Adopt = (metaValue: (key: string) => string | undefined) => void;

const SNAPSHOT_NAME = /^(s[1-9][0-9]*)-([0-9]+)\.db$/;
const INITIAL = "initial.db";

export class ServedState {
  private kept = new Map<string, () => string>();
  private replacing: string | undefined;
  /** Why the state cannot be written any more (a replacement that failed half-way). */
  private broken: string | undefined;

  constructor(
    private database: StateDatabase,
    private readonly exchange: Exchange,
    private readonly options: ServedStateOptions,
  ) {}

  /** The database open now (it changes when a snapshot is restored). */
  get current(): StateDatabase {
    return this.database;
  }

  get failed(): boolean {
    return this.replacing !== undefined || this.broken !== undefined || this.database.failed;
  }

  assertWritable(): void {
    const refusal = this.replacing ?? this.broken;
    if (refusal !== undefined) throw new StorageFailure(refusal);
    this.database.assertWritable();
  }

  committed(): Promise<void> {
    return this.database.committed();
  }

  keepMeta(key: string, value: () => string): void {
    this.kept.set(key, value);
    this.database.keepMeta(key, value);
  }

  saveKeptMeta(): Promise<void> {
    return this.database.saveKeptMeta();
  }

  metaValue(key: string): string | undefined {
    return this.database.metaValue(key);
  }

  close(): Promise<void> {
    return this.database.close();
  }

  // ---- snapshots ----

  get snapshotFolder(): string {
    return `${this.options.path}.snapshots`;
  }

  /** The snapshots kept in the folder (from earlier runs too), oldest first. */
  listSnapshots(): SnapshotFile[] {
    if (!existsSync(this.snapshotFolder)) return [];
    return readdirSync(this.snapshotFolder)
      .map((name) => SNAPSHOT_NAME.exec(name))
      .filter((match) => match !== null)
      .map((match) => ({ id: match[1] as string, takenAt: Number(match[2]) }))
      .sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)));
  }

  /** A backup of the file as committed now, with the sandbox's state as it is now. */
  async takeSnapshot(snapshot: SnapshotFile): Promise<void> {
    await this.backup(`${snapshot.id}-${snapshot.takenAt}.db`);
  }

  /** Keeps the file as it is now as the one reset brings back (replacing an earlier run's). */
  async takeInitial(): Promise<void> {
    rmSync(join(this.snapshotFolder, INITIAL), { force: true });
    await this.backup(INITIAL);
  }

  deleteSnapshot(snapshot: SnapshotFile): void {
    rmSync(this.fileOf(snapshot), { force: true });
  }

  /**
   * Replaces the state file by the snapshot and loads it into the live exchange; `adopt` is given
   * the new file's meta values before any request is served or anything written (the sandbox
   * takes its clock, market and accounts from them).
   */
  restoreSnapshot(snapshot: SnapshotFile, adopt: Adopt): Promise<void> {
    return this.replaceBy(this.fileOf(snapshot), `restoring snapshot ${snapshot.id}`, adopt);
  }

  /** Replaces the state file by the one kept when the server started (see restoreSnapshot). */
  restoreInitial(adopt: Adopt): Promise<void> {
    return this.replaceBy(join(this.snapshotFolder, INITIAL), "resetting to the state at start-up", adopt);
  }

  private fileOf(snapshot: SnapshotFile): string {
    return join(this.snapshotFolder, `${snapshot.id}-${snapshot.takenAt}.db`);
  }

  private async backup(name: string): Promise<void> {
    mkdirSync(this.snapshotFolder, { recursive: true });
    // The kept meta values (the sandbox's clock and market) are committed as they are now.
    await this.database.saveKeptMeta();
    await backupStateFile(this.options.path, join(this.snapshotFolder, name));
  }

  private replaceBy(file: string, what: string, adopt: Adopt): Promise<void> {
    if (!existsSync(file)) throw new StateFileError(`${what}: its file ${file} is gone`);
    return this.options.hold.during(async () => {
      const { path } = this.options;
      // Checked and flushed beside the state file while the server still serves it.
      const copy = await copyBeside(file, path);
      this.replacing = `the server is ${what}`;
      try {
        await this.database.committed().catch(() => undefined);
        const lock = await this.database.closeKeepingLock();
        try {
          installCopy(copy, path);
          const database = await StateDatabase.open(path, {
            lock,
            retentionMs: this.options.retentionMs,
            sync: this.options.sync,
            onFailure: this.options.onFailure,
          });
          const loaded = database.load(this.options.now);
          this.exchange.replaceState(loaded.internalState());
          database.attach(this.exchange);
          database.markServing();
          this.database = database;
          adopt((key) => database.metaValue(key));
          for (const [key, value] of this.kept) database.keepMeta(key, value);
        } catch (error) {
          // The file closed, the new one not served: nothing may be acknowledged any more.
          this.broken = `${what} failed (${(error as Error).message}); restart the server`;
          this.options.onFailure?.(this.broken);
          throw error;
        } finally {
          removeDatabase(copy);
        }
        await this.database.committed();
      } finally {
        this.replacing = undefined;
      }
    });
  }
}
