// `redocly lint` with the repository's rules (redocly.yaml: recommended-strict plus house rules)
// reports zero errors and zero warnings on the spec, and on the sandbox's own document
// (specs/sandbox.openapi.yaml) with the same rules, in one run.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { sandboxPath, specPath } from "./support/openapi.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));

it("redocly lint of both documents: zero errors, zero warnings", async () => {
  const { stdout } = await run(
    "npx",
    [
      "--no-install",
      "redocly",
      "lint",
      "--config",
      "redocly.yaml",
      "--format",
      "json",
      specPath,
      sandboxPath,
    ],
    {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1" },
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((error) => ({ stdout: error.stdout as string }));
  // One JSON report per document, written one after the other (`}{` on a line between them).
  const reports = stdout
    .slice(stdout.indexOf("{"))
    .split(/^\}\{$/m)
    .map((part, i, all) => JSON.parse(`${i > 0 ? "{" : ""}${part}${i < all.length - 1 ? "}" : ""}`));
  expect(reports).toHaveLength(2);
  for (const report of reports) {
    const problems = report.problems.map(
      (p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }
});
