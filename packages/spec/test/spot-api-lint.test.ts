// `redocly lint` with the repository's rules (redocly.yaml: recommended-strict plus house rules)
// reports zero errors and zero warnings on the spec.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { specPath } from "./support/openapi.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));

it("redocly lint: zero errors, zero warnings", async () => {
  const { stdout } = await run(
    "npx",
    ["--no-install", "redocly", "lint", "--config", "redocly.yaml", "--format", "json", specPath],
    {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1" },
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((error) => ({ stdout: error.stdout as string }));
  const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
  const problems = report.problems.map(
    (p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`,
  );
  expect(problems).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
});
