/**
 * The state file (`--state FILE`): the whole exchange (accounts, balances, orders, trades) as
 * JSON. Saved atomically (written to a temporary file in the same folder, flushed, then renamed
 * over the old one), so a crash mid-save never leaves a truncated file.
 */
import { open, readFile, rename, rm } from "node:fs/promises";
import { Exchange, type ExchangeSnapshot } from "./engine/index.js";

export const STATE_FORMAT = "marketapi-server-state/1";

interface StateFile {
  format: typeof STATE_FORMAT;
  savedAt: number;
  exchange: ExchangeSnapshot;
}

export class StateFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`State file ${path}: ${message}`);
    this.name = "StateFileError";
  }
}

/** The exchange saved in `path`, or undefined when there is no such file. */
export async function loadState(path: string, now: () => number): Promise<Exchange | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(path, (error as Error).message);
  }
  let state: StateFile;
  try {
    state = JSON.parse(text) as StateFile;
  } catch (error) {
    throw new StateFileError(path, `not JSON (${(error as Error).message})`);
  }
  if (state?.format !== STATE_FORMAT) {
    throw new StateFileError(
      path,
      `unknown format ${JSON.stringify(state?.format)}; expected "${STATE_FORMAT}"`,
    );
  }
  try {
    return Exchange.fromJSON(state.exchange, { now });
  } catch (error) {
    throw new StateFileError(path, `cannot be restored (${(error as Error).message})`);
  }
}

/** Writes the exchange to `path` atomically. */
export async function saveState(path: string, exchange: Exchange, savedAt: number): Promise<void> {
  const state: StateFile = { format: STATE_FORMAT, savedAt, exchange: exchange.toJSON() };
  const temporary = `${path}.${process.pid}.tmp`;
  const file = await open(temporary, "w");
  try {
    await file.writeFile(JSON.stringify(state));
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Saves when asked, one save at a time: a request made while a save runs starts one more save
 * afterwards, so the last state always reaches the disk.
 */
export class StateSaver {
  private running: Promise<void> | undefined;
  private again = false;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly exchange: Exchange,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  markChanged(): void {
    this.dirty = true;
  }

  /** Saves every `intervalMs` when something changed. */
  startPeriodicSaves(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.dirty) this.save().catch(this.onError);
    }, intervalMs);
    this.timer.unref();
  }

  stopPeriodicSaves(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  save(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.dirty = false;
    this.running = saveState(this.path, this.exchange, this.now()).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.save().catch(this.onError);
      }
    });
    return this.running;
  }

  /** Waits for running saves, then saves once more. */
  async flush(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    await this.save();
  }
}
