// A setup file of every test run (vitest.shared.ts): what each test file cost, written to
// test-results/costs/<file>.json in the package's folder. vitest's JSON report times a file by its
// tests alone (its hooks and imports are left out) and in wall-clock time, which on a shared
// 2-core machine says more about the neighbours than about the file. This records, from the file's
// start (before its imports) to its end (after its last afterAll):
//   - cpuMs: CPU time of the test process and of every child it waited for (tsc, npm, servers),
//     read from /proc/self/stat (Linux; absent elsewhere): nearly independent of the load;
//   - wallMs: elapsed time, for a quiet machine.
// `node scripts/test-costs.mjs` adds them up over the repository.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll } from "vitest";

/** Clock ticks a second of /proc's CPU times (USER_HZ, 100 on every Linux). */
const TICKS_PER_SECOND = 100;

/** This process's CPU time plus its waited-for children's, in ms; undefined where /proc is absent. */
function cpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime, cstime are fields 14 to 17: indexes 11 to 14 here.
    const ticks = fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

const started = { wall: performance.now(), cpu: cpuMs() };
let file: string | undefined;

// vitest hands a hook its fixtures first (which must be a destructuring pattern), the suite second.
// biome-ignore lint/correctness/noEmptyPattern: no fixture is used
beforeAll(({}, suite) => {
  file = "filepath" in suite ? String(suite.filepath) : undefined;
});

afterAll(() => {
  if (file === undefined) return;
  const cpu = cpuMs();
  const name = relative(process.cwd(), file);
  const cost = {
    file: name,
    wallMs: Math.round(performance.now() - started.wall),
    ...(cpu !== undefined && started.cpu !== undefined ? { cpuMs: Math.round(cpu - started.cpu) } : {}),
  };
  const dir = join(process.cwd(), "test-results", "costs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name.replace(/[^A-Za-z0-9.-]+/g, "_")}.json`), `${JSON.stringify(cost)}\n`);
});
