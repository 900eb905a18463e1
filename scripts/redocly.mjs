// Runs the Redocly CLI (`node scripts/redocly.mjs lint …`, as `redocly lint …`) for the builds and
// the lint of this repository, with one line of its output left out.
//
// On Node 20, Redocly CLI 2.x prints a boxed notice each time it starts: Node.js 20 reached its end
// of life on 30 April 2026, and later CLI releases need Node 22.12. That is true, and the root
// README says it once: Node 22 and 24 are this project's targets, and 20.19 or later still works
// (CI here runs 20.20). Printed by every build step that lints the spec, it buried the build's own
// messages, so this wrapper drops that one box from the CLI's standard error and passes everything
// else through unchanged, the exit code included. Any other box, or a changed notice, is kept.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Where the notice starts and ends, and what it says (the words that identify it). */
const BOX_TOP = "╔";
const BOX_BOTTOM = "╚";
const NOTICE = "Node.js 20 reached end-of-life";

/** `text` without the boxed Node 20 end-of-life notice and the blank lines after it. */
export function withoutNode20Notice(/** @type {string} */ text) {
  const lines = text.split("\n");
  for (let top = 0; top < lines.length; top++) {
    if (!lines[top]?.includes(BOX_TOP)) continue;
    const bottom = lines.findIndex((line, i) => i > top && line.includes(BOX_BOTTOM));
    if (bottom < 0) break;
    if (!lines.slice(top, bottom + 1).some((line) => line.includes(NOTICE))) {
      top = bottom;
      continue;
    }
    let end = bottom + 1;
    while (end < lines.length - 1 && lines[end]?.trim() === "") end += 1;
    return [...lines.slice(0, top), ...lines.slice(end)].join("\n");
  }
  return text;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The CLI of the package that runs this (it declares @redocly/cli), as `redocly` there would be.
  const fromPackage = createRequire(join(process.cwd(), "package.json"));
  const cli = join(dirname(fromPackage.resolve("@redocly/cli/package.json")), "bin", "cli.js");
  const run = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "pipe"],
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  process.stderr.write(withoutNode20Notice(run.stderr ?? ""));
  process.exitCode = run.status ?? 1;
}
