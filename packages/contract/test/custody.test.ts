// `marketapi-contract custody`: the state file judged as its operator sees it. The command line's
// rules as given/want, then real servers started by the tester itself: the reference server on
// --state holds every scenario; the same server in memory (it takes the state file's name and
// keeps nothing) fails each, named; a command that serves nothing is exit 3.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { type CustodyOptions, custodyText, parseCustody, runCustody } from "../src/custody.js";
import {
  type CustodyContext,
  newWorkProblems,
  quoteProblems,
  refusalProblems,
  stoppingRefusalProblems,
} from "../src/run/custody.js";
import { commandLine, type OperatedServer } from "../src/run/operated-server.js";
import { LOADED_MACHINE_TIMEOUT_MS } from "./support/run.js";

const serverCli = join(
  dirname(createRequire(import.meta.url).resolve("@marketapi/reference-server/package.json")),
  "dist",
  "cli.js",
);
const testerCli = new URL("../dist/cli.js", import.meta.url).pathname;
const DEMO = ["--api-key", "marketapi-demo-api-key", "--api-secret", "marketapi-demo-api-secret"];
const onState = `'${process.execPath}' '${serverCli}' --state {state} --port {port}`;
// The same server without --state: it is given the file's name (in the environment) and keeps nothing.
const inMemory = `MARKETAPI_STATE_IGNORED={state} '${process.execPath}' '${serverCli}' --port {port}`;

/** The reference server on --state with `lines` of JavaScript preloaded (`--import`); removed when the test ends. */
function onStateWith(name: string, lines: readonly string[]): string {
  const folder = mkdtempSync(join(tmpdir(), `custody-${name}-`));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  const preload = join(folder, `${name}.mjs`);
  writeFileSync(preload, [...lines, ""].join("\n"));
  return onState.replace(`'${serverCli}'`, `--import '${preload}' '${serverCli}'`);
}

/** A time limit under test is the hang limit: the scenarios start servers on a loaded machine. */
function custody(command: string, more: Partial<CustodyOptions> = {}) {
  return runCustody({
    command,
    apiKey: "marketapi-demo-api-key",
    apiSecret: "marketapi-demo-api-secret",
    timeoutMs: LOADED_MACHINE_TIMEOUT_MS,
    startTimeoutMs: 120_000,
    ...more,
  });
}

describe("the command line", () => {
  const cases: Array<{ given: string[]; want: RegExp | Partial<CustodyOptions> }> = [
    { given: [...DEMO], want: /--server COMMAND is required/ },
    { given: ["--server", "srv --port {port}", ...DEMO], want: /--server must hold \{state\}/ },
    { given: ["--server", "srv --state {state}", ...DEMO], want: /--server must hold \{port\}/ },
    { given: ["--server", "srv {state} {port}"], want: /give --api-key and --api-secret/ },
    {
      given: ["--server", "srv {state} {port}", ...DEMO, "--only", "lock"],
      want: /--only takes a scenario .*got "lock"/,
    },
    {
      given: ["--server", "srv {state} {port}", ...DEMO, "--start-timeout", "0"],
      want: /--start-timeout takes a whole number, 1 or more; got/,
    },
    { given: ["--server", "srv {state} {port}", ...DEMO, "--bogus"], want: /--bogus/ },
    {
      given: ["--server", "srv {state} {port}", ...DEMO, "--history=-1"],
      want: /--history takes a whole number, 0 or more; got "-1"/,
    },
    {
      given: ["--server", "srv {state} {port}", ...DEMO, "--only", "full disk", "--start-timeout", "5000"],
      want: { command: "srv {state} {port}", only: ["full disk"], startTimeoutMs: 5000 },
    },
    {
      given: ["--server", "srv {state} {port}", ...DEMO, "--history", "20000"],
      want: { history: 20000 },
    },
  ];
  it.each(cases)("$given", ({ given, want }) => {
    if (want instanceof RegExp) expect(() => parseCustody(given)).toThrow(want);
    else expect(parseCustody(given)).toMatchObject(want);
  });

  const lines: Array<{ given: [string, { state: string; port: number }]; want: string }> = [
    {
      given: ["srv --state {state} --port {port}", { state: "a.db", port: 9 }],
      want: "srv --state 'a.db' --port 9",
    },
    {
      given: ["srv {state} {state} {port}", { state: "it's.db", port: 9 }],
      want: `srv 'it'\\''s.db' 'it'\\''s.db' 9`,
    },
  ];
  it.each(lines)("fills $given.0", ({ given, want }) => {
    expect(commandLine(...given)).toBe(want);
  });
});

describe("a refused start", () => {
  // This process stands in for the holder: its pid, and its program as ps names it.
  const me = process.pid;
  const program = process.execPath.split("/").at(-1)!;
  const context = { startTimeoutMs: 1000 } as CustodyContext;
  const refused = (code: number | null, output: string) => ({
    ready: false as const,
    ending: code === null ? undefined : { code, signal: null },
    output,
    server: {} as OperatedServer,
  });
  const cases: Array<{ given: [number | null, string, number[]]; want: RegExp[] }> = [
    { given: [2, `state file a.db: in use by PID ${me}: ${program} srv`, [me]], want: [] },
    { given: [2, "state file a.db: damaged", []], want: [] },
    { given: [null, "", []], want: [/neither served nor ended within 1000 ms/] },
    { given: [0, "bye", []], want: [/a refusal is a non-zero exit code/] },
    { given: [2, "the state file is in use", []], want: [/does not name the path it was given \(a\.db\)/] },
    {
      given: [2, `a.db in use by PID ${me}1`, [me]],
      want: [/does not name the process that holds the file/],
    },
    {
      given: [2, `a.db in use by PID ${me}: s r v`, [me]],
      want: [new RegExp(`names pid ${me} but not its program`)],
    },
  ];
  it.each(cases)("$given.1 → $want", ({ given: [code, output, holders], want }) => {
    const problems = refusalProblems(refused(code, output), "a.db", context, holders);
    expect(problems).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
  });
});

describe("the refusal of a value altered in place", () => {
  const quote = { arrived: "BUZ", expected: "BUY" };
  const cases: Array<{ given: string; want: RegExp[] }> = [
    { given: 'state file a.db: side holds "BUZ", where the engine takes one of BUY, SELL', want: [] },
    { given: 'state file a.db: side holds "BUZ"', want: [/does not say what a server takes \(BUY\)/] },
    { given: "state file a.db: is damaged", want: [/what arrived \(BUZ\)/, /what a server takes \(BUY\)/] },
  ];
  it.each(cases)("$given → $want", ({ given, want }) => {
    const problems = quoteProblems(given, quote);
    expect(problems).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
  });

  it("nothing to quote where the damage altered no value", () => {
    expect(quoteProblems("state file a.db: is damaged", undefined)).toEqual([]);
  });
});

describe("orders taken after SIGTERM", () => {
  const cases: Array<{ given: number[]; want: RegExp[] }> = [
    { given: [0, 0, 0, 0], want: [] },
    // A request may reach the server before the signal does, and the signal be seen a turn late.
    { given: [1, 2, 0, 1], want: [] },
    { given: [3, 0, 0, 0], want: [/client 1 had 3 orders acknowledged that it sent after SIGTERM/] },
    { given: [0, 40, 1, 9], want: [/client 2 had 40/, /client 4 had 9 .*takes no new work/] },
  ];
  it.each(cases)("$given → $want", ({ given, want }) => {
    const problems = newWorkProblems(given);
    expect(problems).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
  });
});

describe("refusals as the server stops", () => {
  const refused = (status: number | undefined) => ({
    clientOrderId: "c1",
    refused: `${status ?? "no answer"}`,
    ...(status === undefined ? { unanswered: true as const } : { status }),
  });
  const cases: Array<{
    given: string;
    placed: Parameters<typeof stoppingRefusalProblems>[0];
    want: RegExp[];
  }> = [
    { given: "acknowledged", placed: [{ clientOrderId: "c0", orderId: 7 }], want: [] },
    { given: "503", placed: [refused(503)], want: [] },
    { given: "no answer (the connection closed)", placed: [refused(undefined)], want: [] },
    { given: "429, the order's own refusal", placed: [refused(429)], want: [] },
    { given: "504", placed: [refused(504)], want: [/order c1 was refused with 504 as the server stopped/] },
    { given: "500", placed: [refused(500)], want: [/refused with 500 .*503 Service Unavailable/] },
  ];
  it.each(cases)("$given → $want", ({ placed, want }) => {
    const problems = stoppingRefusalProblems(placed);
    expect(problems).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
  });
});

describe("against real servers the tester starts", () => {
  it("the reference server on --state holds every scenario", async () => {
    const result = await custody(onState, { history: 2000 });
    expect(result.error).toBeUndefined();
    expect(result.findings).toEqual([]);
    expect(result.exitCode).toBe(0);
    // One writer 6, taken away 3, damaged 14 (7 files, each by two names), full disk 1 and its
    // orders (at least 2 kept or refused), full disk at start 1 and its 2, open files 1.
    expect(result.held).toBeGreaterThanOrEqual(30);
    expect(result.notes.join("\n")).toMatch(/open files after work that ended: \d+ open before 200 orders/);
    // The side of its order is text in its file after a stop (a log beside it may hold it after kill -9).
    expect(result.notes.join("\n")).not.toMatch(/altered in place .*, after a stop: not tried/);
    expect(result.notes.join("\n")).toMatch(
      /a full disk: \d+ order\(s\) acknowledged with no room to grow a file, then one refused/,
    );
  });

  it("a server that keeps nothing (in memory, the file's name ignored) fails each scenario, named", async () => {
    const result = await custody(inMemory, { history: 300 });
    const said = custodyText(result);
    expect(result.exitCode, said).toBe(1);
    expect(said).toMatch(
      /one writer: a second server on link\.db: served while process \d+ serves state\.db: two writers/,
    );
    expect(said).toMatch(
      /one writer: 2 acknowledged order\(s\) not there at the next start .*custody-writer-1/,
    );
    expect(said).toMatch(
      /one writer: BTCUSDT all_orders \(newest 1000\): at the next start on the same state file: leaves out order\(s\) \d+, \d+ acknowledged/,
    );
    expect(said).toMatch(
      /a state file text in its place, after kill -9, started as state\.db: served: a damaged state file must be refused/,
    );
    expect(said).toMatch(
      /a full disk: \d+ acknowledged order\(s\) not there at the next start .*custody-full-0/,
    );
    expect(said).toMatch(
      /a full disk at the first start: 1 acknowledged order\(s\) not there at the next start .*custody-no-room/,
    );
    expect(said).toMatch(
      /a history of 300 orders: at the next start on the same state file, query_order by origClientOrderId misses 300 of 300 order\(s\)/,
    );
    // It writes no file, so what needs one is said, not tried.
    expect(said).toMatch(/state file deleted while served: not tried, the server made no file at state\.db/);
  });

  it("a server that ignores SIGTERM is still running at the stop timeout: a finding, and it is killed", async () => {
    // A preload that keeps the server's own SIGTERM handler from being set, and sets one that does nothing.
    const result = await custody(
      onStateWith("deaf", [
        "const on = process.on.bind(process);",
        'process.on = (e, f) => (e === "SIGTERM" ? process : on(e, f));',
        'on("SIGTERM", () => {});',
      ]),
      {
        only: ["graceful stop"],
        stopTimeoutMs: 1000, // time limit under test: the stop's (a deaf server never ends), not the start's
      },
    );
    expect(custodyText(result)).toMatch(
      /a stop \(SIGTERM\) while orders arrive: still running 1000 ms after SIGTERM: a stop must end the server/,
    );
    expect(result.exitCode).toBe(1);
  });

  it("a server that goes on serving its busy connections after SIGTERM: new work taken while stopping", async () => {
    // A preload that holds the server's own SIGTERM handler back until 20 more requests were
    // served (counted, not timed): among four clients, one has at least five orders taken.
    const result = await custody(
      onStateWith("lingering", [
        'import http from "node:http";',
        "let served = -1;",
        "let stop = () => {};",
        "const emit = http.Server.prototype.emit;",
        'http.Server.prototype.emit = function (event, ...rest) { if (event === "request" && served >= 0 && ++served === 20) stop(); return emit.call(this, event, ...rest); };',
        "const on = process.on.bind(process);",
        'process.on = (e, f) => (e === "SIGTERM" ? on(e, () => { served = 0; stop = () => f(e); }) : on(e, f));',
      ]),
      { only: ["graceful stop"] },
    );
    expect(custodyText(result)).toMatch(
      /a stop \(SIGTERM\) while orders arrive: client \d had \d+ orders acknowledged that it sent after SIGTERM/,
    );
    expect(result.exitCode).toBe(1);
  });

  it("a server that answers 500 while it stops: the client cannot tell its order was not taken", async () => {
    // A preload: from SIGTERM on, the server goes on listening and answers 500 (its database
    // closed first, say); its own stop runs once the first such answer is out.
    const result = await custody(
      onStateWith("failing-stop", [
        'import http from "node:http";',
        "let stop;",
        "const emit = http.Server.prototype.emit;",
        "http.Server.prototype.emit = function (event, req, res) {",
        '  if (event !== "request" || !stop) return emit.call(this, event, req, res);',
        '  res.on("finish", stop);',
        '  res.writeHead(500, { "Content-Type": "application/json", Connection: "close" });',
        '  res.end(JSON.stringify({ code: -1000, msg: "the database is closed" }));',
        "  return true;",
        "};",
        "const on = process.on.bind(process);",
        'process.on = (e, f) => (e === "SIGTERM" ? on(e, () => { stop = () => f(e); }) : on(e, f));',
      ]),
      { only: ["graceful stop"] },
    );
    expect(custodyText(result)).toMatch(
      /a stop \(SIGTERM\) while orders arrive: order custody-stop-\d-\d+ was refused with 500 as the server stopped/,
    );
    expect(result.exitCode).toBe(1);
  });

  it("a server that opens a file with each request and never closes it: a finding", async () => {
    const result = await custody(
      onStateWith("leak", [
        'import { openSync } from "node:fs";',
        'import http from "node:http";',
        "const emit = http.Server.prototype.emit;",
        'http.Server.prototype.emit = function (event, ...rest) { if (event === "request") openSync("/dev/null", "r"); return emit.call(this, event, ...rest); };',
      ]),
      { only: ["open files"] },
    );
    expect(custodyText(result)).toMatch(
      /open files after work that ended: its processes hold \d+ open files \(descriptors\) .* against \d+ before them/,
    );
    expect(result.exitCode).toBe(1);
  });

  it("a server that makes its state file empty first, and then its contents: a killed first start strands the path", async () => {
    // Before the server runs on a new path: an empty file there for three seconds, removed after
    // (so a start not killed serves). Killed meanwhile, it leaves the empty file.
    const result = await custody(
      onStateWith("half-made", [
        'import { existsSync, rmSync, writeFileSync } from "node:fs";',
        'const path = process.argv[process.argv.indexOf("--state") + 1];',
        "if (!existsSync(path)) {",
        '  writeFileSync(path, "");',
        "  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);",
        "  rmSync(path);",
        "}",
      ]),
      { only: ["killed while starting"] },
    );
    expect(custodyText(result)).toMatch(
      /kill -9 as state\.db appears, in a first start: the next start on state\.db does not serve \(exit code 2; the folder holds state\.db.*is empty.*a start killed before it served must leave the path usable/,
    );
    expect(result.exitCode).toBe(1);
  });

  it("a server that does not ignore SIGXFSZ ends by it on the full disk: said, and judged at the next start", async () => {
    // Node ignores the signal; this preload lets it end the process, as it does most programs.
    const result = await custody(
      onStateWith("dies", [
        'process.on("SIGXFSZ", () => { process.removeAllListeners("SIGXFSZ"); process.kill(process.pid, "SIGXFSZ"); });',
      ]),
      { only: ["full disk"] },
    );
    expect(result.notes.join("\n")).toMatch(
      /a full disk: ended by SIGXFSZ, the file-size limit's own signal/,
    );
    expect(result.findings).toEqual([]);
    expect(result.exitCode).toBe(0);
  });

  it("a command that serves nothing is exit 3, saying what it printed", async () => {
    const result = await custody("echo no server here {state} {port}", { only: ["one writer"] });
    expect(result.exitCode).toBe(3);
    expect(result.error).toMatch(
      /did not give a server that answers ping on a new state file \(exit code 0\): no server here/,
    );
  });

  it("the command: usage errors are exit 2 with the usage", () => {
    const run = spawnSync(process.execPath, [testerCli, "custody", "--server", "srv"], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--server must hold \{state\}/);
    expect(run.stderr).toMatch(/Usage: marketapi-contract custody/);
  });
});
