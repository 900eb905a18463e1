// The command-line tests run the built dist/cli.js (test/support/cli.ts). Under turbo the build
// comes first; for a bare `npx vitest run` this builds the package through turbo when any source
// file is newer than its build, before any test starts.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO_ROOT = join(PACKAGE_DIR, "../..");
const BUILT = join(PACKAGE_DIR, "dist/cli.js");

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export default function setup(): void {
  if (existsSync(BUILT) && newest(join(PACKAGE_DIR, "src")) <= statSync(BUILT).mtimeMs) return;
  execFileSync(
    join(REPO_ROOT, "node_modules/.bin/turbo"),
    ["run", "build", "--filter=@marketapi/reference-server", "--output-logs=errors-only"],
    { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
}
