// The command-line tests run the built launcher (dist/cli.js), and the consumer projects import
// the built @marketapi/client and @marketapi/validators. Under turbo those builds come first
// (packages/codegen/turbo.json); for a bare `npx vitest run` this builds whatever is older than
// its sources, through turbo, before any test starts.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR, REPO_ROOT } from "./cli-support.js";

const BUILDS = [
  { name: "@marketapi/codegen", dir: PACKAGE_DIR, output: "dist/cli.js" },
  { name: "@marketapi/client", dir: join(REPO_ROOT, "packages/client"), output: "dist/index.js" },
  { name: "@marketapi/validators", dir: join(REPO_ROOT, "packages/validators"), output: "dist/index.js" },
];

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export default function setup(): void {
  const stale = BUILDS.filter(({ dir, output }) => {
    const built = join(dir, output);
    return !existsSync(built) || newest(join(dir, "src")) > statSync(built).mtimeMs;
  });
  if (stale.length === 0) return;
  const filters = stale.map(({ name }) => `--filter=${name}`);
  execFileSync(
    join(REPO_ROOT, "node_modules/.bin/turbo"),
    ["run", "build", ...filters, "--output-logs=errors-only"],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}
