import { readFileSync } from "node:fs";

/**
 * The module the generated `validators-runtime.ts` copies: validators-runtime.ts of this folder,
 * read from the package's `src/` (shipped with it) whether this code runs from `src/` or `dist/`.
 * Its leading comment, which speaks of the copy, is left out of the output.
 */
const RUNTIME_MODULE = new URL("../../src/validators/validators-runtime.ts", import.meta.url);

let cached: string | undefined;

/** The runtime module's text as the output carries it, after the generated-file header. */
export function runtimeSource(): string {
  if (cached === undefined) {
    const text = readFileSync(RUNTIME_MODULE, "utf8");
    cached = text.slice(text.indexOf("\n\n") + 1);
  }
  return cached;
}
