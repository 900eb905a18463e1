// Measures the client runtime as a browser would load it: src/index.ts bundled by esbuild with its
// dependencies, minified ESM with code splitting, then gzipped. What `import "@marketapi/client"`
// loads is the entry chunk and the chunks it imports statically; the parts loaded on first use
// (`import()`: openapi-fetch, paging, the lookup, the clock, request bodies) are chunks of their
// own. Generated types disappear in the bundle by design.
import { basename, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

export interface BundleSize {
  /** What the import loads: the entry chunk and its static imports, minified. */
  minified: number;
  /** The same, gzipped as one text. */
  gzipped: number;
  /** The files in the static part, relative to the package. */
  inputs: string[];
  /** The files of the chunks loaded on first use. */
  lazyInputs: string[];
  /** The chunks loaded on first use, minified and gzipped together. */
  lazyMinified: number;
  lazyGzipped: number;
}

export async function measureBundle(entry: string): Promise<BundleSize> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    outdir: "bundle",
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const outputs = result.metafile.outputs;
  const byName = (path: string) => Object.keys(outputs).find((key) => basename(key) === basename(path))!;
  // The entry's own chunk: the chunks of dynamic imports name an entry point too, and may come first.
  const first = Object.keys(outputs).find(
    (key) => outputs[key]!.entryPoint !== undefined && resolve(outputs[key]!.entryPoint!) === resolve(entry),
  );
  if (first === undefined) throw new Error(`measureBundle: no output chunk has ${entry} as its entry point`);
  const loaded = new Set<string>();
  for (const pending = [first]; pending.length > 0; ) {
    const key = pending.pop()!;
    if (loaded.has(key)) continue;
    loaded.add(key);
    for (const imported of outputs[key]!.imports)
      if (imported.kind === "import-statement") pending.push(byName(imported.path));
  }
  const files = new Map(result.outputFiles.map((file) => [basename(file.path), file.contents]));
  const sizeOf = (keys: string[]) => {
    const text = Buffer.concat(keys.map((key) => files.get(basename(key))!));
    return { minified: text.byteLength, gzipped: gzipSync(text, { level: 9 }).byteLength };
  };
  const lazy = Object.keys(outputs).filter((key) => !loaded.has(key) && key.endsWith(".js"));
  const inputsOf = (keys: string[]) => keys.flatMap((key) => Object.keys(outputs[key]!.inputs));
  const eager = sizeOf([...loaded]);
  const later = sizeOf(lazy);
  return {
    ...eager,
    inputs: inputsOf([...loaded]),
    lazyInputs: inputsOf(lazy),
    lazyMinified: later.minified,
    lazyGzipped: later.gzipped,
  };
}
