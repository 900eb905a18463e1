// The API gate of `npm test` (scripts/api-versions.mjs) in a scratch repository: it blocks a breaking
// edit of specs/ unless info.version has the major bump, passes a compatible edit, and a release
// records the new version and its changes.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run } from "../release-check.mjs";
import { root } from "../workspace-packages.mjs";

const SPEC = join("specs", "spot-api.openapi.yaml");
const released = readFileSync(join(root, "specs", "releases", "1.0.0", "spot-api.openapi.yaml"), "utf8");
const VERSION = "  version: 1.0.0\n";
/** aggTrades' optional fromId; making it required breaks every client that leaves it out. */
const FROM_ID =
  "        - name: fromId\n          in: query\n          required: false\n          description: Aggregate trade id";
let repo: string;

function git(...args: string[]) {
  execFileSync("git", ["-c", "user.name=gate test", "-c", "user.email=gate@test.invalid", ...args], {
    cwd: repo,
    stdio: "ignore",
  });
}

/** specs/ of the scratch repository: the released text with edits, each of which must apply once. */
function editSpec(...edits: [string, string][]) {
  let text = released;
  for (const [from, to] of edits) {
    expect(text.split(from).length - 1, from).toBe(1);
    text = text.replace(from, to);
  }
  writeFileSync(join(repo, SPEC), text);
}

const apiVersions = (...args: string[]) =>
  run(process.execPath, [join(root, "scripts", "api-versions.mjs"), ...args, "--root", repo], { cwd: repo });

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "marketapi-gate-"));
  mkdirSync(join(repo, "specs", "releases", "1.0.0"), { recursive: true });
  mkdirSync(join(repo, "packages", "spec"), { recursive: true });
  writeFileSync(join(repo, "specs", "releases", "1.0.0", "spot-api.openapi.yaml"), released);
  writeFileSync(join(repo, SPEC), released);
  writeFileSync(join(repo, "package.json"), JSON.stringify({ private: true, workspaces: ["packages/*"] }));
  writeFileSync(join(repo, "packages", "spec", "package.json"), JSON.stringify({ name: "@marketapi/spec" }));
  cpSync(join(root, "packages", "spec", "CHANGELOG.md"), join(repo, "packages", "spec", "CHANGELOG.md"));
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "API 1.0.0 released");
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe("the API gate", () => {
  it("passes specs/ as released", async () => {
    const result = await apiVersions("check");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("API 1.0.0 against the released 1.0.0: no changes");
  });

  it("blocks a breaking edit without a major bump, saying what broke and how to proceed", async () => {
    editSpec([FROM_ID, FROM_ID.replace("required: false", "required: true")]);
    const result = await apiVersions("check");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "1 breaking change(s) since the released API 1.0.0, but info.version is 1.0.0",
    );
    expect(result.stderr).toContain("GET /api/v3/aggTrades (aggTrades)");
    expect(result.stderr).toMatch(
      /\/paths\/~1api~1v3~1aggTrades\/get\/parameters\/1\/required: query parameter "fromId" is now required/,
    );
    expect(result.stderr).toContain("set info.version in specs/spot-api.openapi.yaml to 2.0.0");
  });

  it("blocks a breaking edit with a minor bump, and passes it with the major bump", async () => {
    editSpec(
      [FROM_ID, FROM_ID.replace("required: false", "required: true")],
      [VERSION, "  version: 1.1.0\n"],
    );
    expect((await apiVersions("check")).code).toBe(1);
    editSpec(
      [FROM_ID, FROM_ID.replace("required: false", "required: true")],
      [VERSION, "  version: 2.0.0\n"],
    );
    const result = await apiVersions("check");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("the next release needs at least a major bump");
  });

  it("passes a compatible edit without a bump, and says the release needs a minor one", async () => {
    editSpec([
      FROM_ID,
      FROM_ID.replace("required: false", "required: false\n          deprecated: false").replace(
        "- name: fromId",
        "- name: limitHint\n          in: query\n          schema:\n            type: integer\n        - name: fromId",
      ),
    ]);
    const result = await apiVersions("check");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("0 breaking, 1 compatible");
    expect(result.stdout).toContain("the next release needs at least a minor bump");
  });

  it("refuses an info.version lower than the last release", async () => {
    editSpec([VERSION, "  version: 0.9.0\n"]);
    const result = await apiVersions("check");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("lower than the last released API version 1.0.0");
  });

  it("refuses to compare with nothing when specs/releases is missing", async () => {
    rmSync(join(repo, "specs", "releases"), { recursive: true });
    const result = await apiVersions("check");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("specs/releases is missing, so there is no release to compare");
  });

  it("names the file and line of a release that cannot be read", async () => {
    writeFileSync(
      join(repo, "specs", "releases", "1.0.0", "spot-api.openapi.yaml"),
      released.replace(VERSION, "  version: 1.0.1\n"),
    );
    const result = await apiVersions("check");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /specs\/releases\/1\.0\.0\/spot-api\.openapi\.yaml#\/info\/version \(line 4, column 3\): expected "1\.0\.0", the version its folder names, found "1\.0\.1"/,
    );
  });

  it("records a release: the bump must fit, then specs/releases/<version> and the CHANGELOG section", async () => {
    const addOption = (to: string) =>
      editSpec(
        [
          FROM_ID,
          `${FROM_ID.replace("- name: fromId", "- name: limitHint\n          in: query\n          schema:\n            type: integer\n        - name: fromId")}`,
        ],
        [VERSION, to],
      );
    addOption(VERSION);
    const unbumped = await apiVersions("record");
    expect(unbumped.code).toBe(1);
    expect(unbumped.stderr).toContain("set it to 1.1.0 or higher before releasing");
    expect((await apiVersions("check", "--release")).code).toBe(1);

    addOption("  version: 1.1.0\n");
    const recorded = await apiVersions("record");
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(readFileSync(join(repo, "specs", "releases", "1.1.0", "spot-api.openapi.yaml"), "utf8")).toBe(
      readFileSync(join(repo, SPEC), "utf8"),
    );
    const changelog = readFileSync(join(repo, "packages", "spec", "CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(
      /^# @marketapi\/spec\n\n## 0\.1\.0\n\n### API 1\.1\.0 \(changes since 1\.0\.0\)\n\n#### Compatible changes\n\n- \*\*GET \/api\/v3\/aggTrades \(aggTrades\)\*\*: optional query parameter "limitHint" added/,
    );
    expect((await apiVersions("check", "--release")).code).toBe(0);
    expect(existsSync(join(repo, "specs", "releases", "1.0.0"))).toBe(true);
  });
});

/** `npm run api:check`: the gate on the packages' sources, the changes since HEAD and the seed's facts. */
const apiCheck = () =>
  run(
    process.execPath,
    [
      "--import",
      join(root, "scripts", "source-imports", "register.mjs"),
      join(root, "scripts", "api-versions.mjs"),
      "check",
      "--since-commit",
      "--seed-facts",
      "--root",
      repo,
    ],
    { cwd: repo },
  );

describe("npm run api:check", () => {
  const LIMIT_HINT = FROM_ID.replace(
    "- name: fromId",
    "- name: limitHint\n          in: query\n          schema:\n            type: integer\n        - name: fromId",
  );

  it("reports the changes since the release and since the last commit, and a parameter the source does not have", async () => {
    editSpec([FROM_ID, LIMIT_HINT]);
    const result = await apiCheck();
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain("API 1.0.0 against the released 1.0.0: 0 breaking, 1 compatible");
    expect(result.stdout).toMatch(
      /since the last commit: HEAD:specs\/spot-api\.openapi\.yaml .*1 compatible/,
    );
    expect(result.stdout).toContain('optional query parameter "limitHint" added');
    expect(result.stderr).toContain(
      "aggTrades, parameter limitHint: parameter not in the source document (source document: no such parameter; specs/: declared)",
    );
    expect(result.stderr).toContain("update packages/spec/test/data/seed-000.ts");
  });

  it("says no changes since the last commit once the edit is committed; the release comparison still shows it", async () => {
    editSpec([FROM_ID, FROM_ID.replace("Aggregate trade id", "The aggregate trade id")]);
    git("commit", "-q", "-am", "describe fromId");
    const result = await apiCheck();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("since the last commit: no changes");
    expect(result.stdout).toContain("0 breaking, 0 compatible, 1 informational");
    expect(result.stdout).toContain("the source document's facts (seed 000): kept");
  });

  it("says so where there is no commit to compare with", async () => {
    rmSync(join(repo, ".git"), { recursive: true, force: true });
    const result = await apiCheck();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "since the last commit: not known (git show HEAD:specs/spot-api.openapi.yaml:",
    );
  });
});

describe("npm test (scripts/test-all.mjs)", () => {
  it("reports a breaking change without a major bump first, and stops before the package tests", async () => {
    editSpec([FROM_ID, FROM_ID.replace("required: false", "required: true")]);
    const result = await run(process.execPath, [join(root, "scripts", "test-all.mjs"), "--root", repo], {
      cwd: repo,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("1 breaking change(s) since the released API 1.0.0");
    expect(result.stderr).toContain("test: FAILED: the API version gate (above)");
    expect(result.stderr).toContain(
      "stopped before the package tests; `npm test -- --keep-going` runs them anyway",
    );
    expect(result.stdout).toMatch(/^test: API version gate/);
    expect(result.stdout).not.toContain("repository tests");
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("0 passed, 1 failed");
  });
});
