/**
 * Keeps a copy of the tester as it is built now, so that a later tester can be measured beside
 * it on the same mutants (bench/mutants.bench.ts --tester NAME=PATH): the built packages the
 * tester runs on (contract, spec, spec-loader, validators, reference-server) are copied to
 * .mutants/testers/NAME/node_modules/@marketapi/, where Node finds them before the workspace's;
 * third-party packages still resolve from the repository's node_modules.
 *
 *   npx tsx bench/mutants/snapshot-tester.ts NAME    (after npx turbo run build --filter=@marketapi/contract...)
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGES = ["contract", "spec", "spec-loader", "validators", "reference-server"];
const name = process.argv[2];
if (!name || !/^[a-z0-9-]+$/.test(name)) {
  process.stderr.write("usage: snapshot-tester.ts NAME (lower-case letters, digits, -)\n");
  process.exit(2);
}
const contractDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(join(contractDir, "package.json"));
const target = join(contractDir, ".mutants", "testers", name);
rmSync(target, { recursive: true, force: true });
for (const pkg of PACKAGES) {
  const from = pkg === "contract" ? contractDir : dirname(require.resolve(`@marketapi/${pkg}/package.json`));
  if (!existsSync(join(from, "dist"))) throw new Error(`@marketapi/${pkg} is not built (${from}/dist)`);
  const to = join(target, "node_modules", "@marketapi", pkg);
  mkdirSync(to, { recursive: true });
  for (const part of ["package.json", "dist", "bin"]) {
    if (existsSync(join(from, part))) cpSync(join(from, part), join(to, part), { recursive: true });
  }
}
writeFileSync(join(target, "SOURCE"), `snapshot of the built packages, ${new Date().toISOString()}\n`);
process.stdout.write(`${join(target, "node_modules", "@marketapi", "contract", "dist", "cli.js")}\n`);
