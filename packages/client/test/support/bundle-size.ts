// Measures the client runtime as a browser would load it: src/index.ts bundled by esbuild with
// openapi-fetch, minified ESM, then gzipped. Generated types disappear in the bundle by design.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

export interface BundleSize {
  minified: number;
  gzipped: number;
  /** The files that ended up in the bundle, relative to the package. */
  inputs: string[];
}

export async function measureBundle(entry: string): Promise<BundleSize> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.contents;
  return {
    minified: code.byteLength,
    gzipped: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
  };
}
