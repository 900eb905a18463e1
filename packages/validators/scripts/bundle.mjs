// Second build step (after tsc): each entry (index, endpoint, sandbox) becomes one self-contained ES
// module. Node loads one file instead of ten, which is most of the cold-start time, and the
// bundle is the browser-ready form as well. tsc's declaration files stay as they are; the
// JavaScript files the bundles replace are removed from dist.
import { readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const entries = ["index", "endpoint", "sandbox"];
/** Files that stay: the bundles and the command, which imports the index bundle. */
const kept = new Set([...entries, "cli"].flatMap((name) => [`${name}.js`, `${name}.js.map`]));

await build({
  entryPoints: entries.map((name) => join(dist, `${name}.js`)),
  outdir: dist,
  allowOverwrite: true,
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  minify: true,
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
});

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
for (const file of walk(dist)) {
  const name = relative(dist, file);
  if (/\.js(\.map)?$/.test(name) && !kept.has(name)) rmSync(file);
}
