// One behaviour for every command: each marketapi command, run for real, answers a mistyped
// option with exit 2, a did-you-mean and a short usage, and a faulty spec or input file with
// exit 1 and the file, line and column; every command's README prints the same table of exit
// codes, @marketapi/command's EXIT_CODES_TABLE.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT_CODES_TABLE } from "@marketapi/command";
import { afterAll, describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "marketapi-commands-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The spec with a $ref to a schema it does not have: a fault at a line and column of the file. */
const faultySpec = join(work, "faulty.yaml");
writeFileSync(
  faultySpec,
  readFileSync(join(REPO, "specs", "spot-api.openapi.yaml"), "utf8").replace(
    '$ref: "#/components/schemas/SymbolName"',
    '$ref: "#/components/schemas/SymbolNme"',
  ),
);
/** A JSON input file with a syntax error on its third line. */
const faultyJson = join(work, "faulty.json");
writeFileSync(faultyJson, '{\n  "resourceType": "Endpoint",\n  status: "active"\n}\n');

interface Command {
  name: string;
  pkg: string;
  /** A near miss of one of its options, and the option it should suggest. */
  typo: { args: string[]; flag: string; meant: string };
  /** A run on a faulty spec or input file, and the file it must name. */
  faulty: { args: string[]; file: string };
  /** Each input file it reads, as arguments naming a given path (a spec, a record, a config). */
  inputs: ((path: string) => string[])[];
}

const COMMANDS: Command[] = [
  {
    name: "marketapi-codegen",
    pkg: "codegen",
    typo: { args: ["--sepc", "x.yaml", "--out", "out"], flag: "--sepc", meant: "--spec" },
    faulty: { args: ["--spec", faultySpec, "--out", join(work, "gen"), "--check"], file: faultySpec },
    // Its --config is an option file: a bad one is a usage error (2), as its README says.
    inputs: [(path) => ["--spec", path, "--out", join(work, "gen")]],
  },
  {
    name: "marketapi-docs",
    pkg: "docs",
    typo: { args: ["build", "--sepc", "x.yaml", "--out", "site"], flag: "--sepc", meant: "--spec" },
    faulty: { args: ["build", "--spec", faultySpec, "--out", join(work, "site")], file: faultySpec },
    inputs: [
      (path) => ["build", "--spec", path, "--out", join(work, "site")],
      (path) => ["build", "--endpoint-schema", path, "--out", join(work, "site")],
      (path) => ["build", "--releases", path, "--out", join(work, "site")],
    ],
  },
  {
    name: "marketapi-diff",
    pkg: "diff",
    typo: { args: ["a.yaml", "b.yaml", "--jsno"], flag: "--jsno", meant: "--json" },
    faulty: { args: [join(REPO, "specs", "spot-api.openapi.yaml"), faultySpec], file: faultySpec },
    inputs: [
      (path) => [path, join(REPO, "specs", "spot-api.openapi.yaml")],
      (path) => [join(REPO, "specs", "spot-api.openapi.yaml"), path],
    ],
  },
  {
    name: "marketapi-validate",
    pkg: "validators",
    typo: { args: ["endpoint", "x.json", "--jsno"], flag: "--jsno", meant: "--json" },
    faulty: { args: ["endpoint", faultyJson], file: faultyJson },
    inputs: [
      (path) => ["endpoint", path],
      (path) => ["request", "ping", path],
      (path) => ["response", "ping", "200", path],
    ],
  },
  {
    name: "marketapi-contract",
    pkg: "contract",
    typo: { args: ["--base-ulr", "http://127.0.0.1:9"], flag: "--base-ulr", meant: "--base-url" },
    faulty: { args: ["--endpoint", faultyJson], file: faultyJson },
    inputs: [(path) => ["--endpoint", path]],
  },
  {
    name: "marketapi-server",
    pkg: "reference-server",
    typo: { args: ["--prot", "0"], flag: "--prot", meant: "--port" },
    faulty: { args: ["--port", "0", "--config", faultyJson], file: faultyJson },
    // Its --state files are refused with 2, as its README says: the operator picks another file.
    inputs: [(path) => ["--port", "0", "--config", path]],
  },
];

function run(command: Command, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = join(REPO, "packages", command.pkg, "bin", `${command.name}.js`);
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: work }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe.concurrent("every command, run for real", () => {
  it.each(COMMANDS)(
    "$name: a mistyped option is exit 2, a did-you-mean and a short usage",
    async (command) => {
      const { typo } = command;
      const result = await run(command, typo.args);
      expect(result.code, result.stderr).toBe(2);
      const [first, second] = result.stderr.split("\n");
      expect(first).toBe(`${command.name}: unknown option ${typo.flag}; did you mean ${typo.meant}?`);
      expect(second).toMatch(new RegExp(`^Usage: ${command.name}\\b`));
      expect(result.stderr.split("\n").length, "a short usage, not the whole help").toBeLessThanOrEqual(4);
    },
  );

  it.each(COMMANDS)(
    "$name: a faulty spec or input file is exit 1, with file, line and column",
    async (command) => {
      const result = await run(command, command.faulty.args);
      expect(result.code, result.stderr).toBe(1);
      // The file as the command names it (some print it relative to their working folder).
      const name = command.faulty.file.split("/").pop()!.replace(/\./g, "\\.");
      const located = new RegExp(`${name}(#\\S*)? \\(line \\d+, column \\d+\\)`);
      expect(result.stderr).toMatch(located);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
  );
});

const folder = join(work, "a-folder");
mkdirSync(folder);

/** Every input file of every command, missing and unreadable (a folder where a file belongs). */
const UNREADABLE = COMMANDS.flatMap((command) =>
  command.inputs.flatMap((args, index) =>
    [
      ["missing", join(work, `missing-${index}.json`)],
      ["a folder", folder],
    ].map(([what, path]) => ({ name: command.name, what, args: args(path!), path: path!, command })),
  ),
);

describe.concurrent("every input file of every command", () => {
  it.each(UNREADABLE)(
    "$name $args.0 …: an input file that is $what is exit 1 (the input is at fault), naming it",
    async ({ command, args, path }) => {
      const result = await run(command, args);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(path.split("/").pop());
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
  );
});

describe("the exit codes in every command's README", () => {
  it.each([...COMMANDS.map((c) => c.pkg), "command"])("packages/%s/README.md prints the table", (pkg) => {
    const readme = readFileSync(join(REPO, "packages", pkg, "README.md"), "utf8");
    const mark = readme.indexOf("<!-- exit-codes:");
    expect(mark, "the <!-- exit-codes: … --> mark before the table").toBeGreaterThanOrEqual(0);
    const table = readme.slice(readme.indexOf("\n", mark) + 1).split("\n\n")[0];
    expect(table).toBe(EXIT_CODES_TABLE);
  });
});
