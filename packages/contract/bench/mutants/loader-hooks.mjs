// Module hooks (see loader.mjs): the module at `url` is loaded from the JavaScript in `file`.
import { readFileSync } from "node:fs";

/** @type {string | undefined} */
let target;
/** @type {string | undefined} */
let source;

/** @param {{ url?: string, file?: string }} data */
export function initialize(data) {
  target = data.url;
  source = data.file ? readFileSync(data.file, "utf8") : undefined;
}

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<unknown>} nextLoad
 */
export async function load(url, context, nextLoad) {
  if (target !== undefined && source !== undefined && url === target) {
    return { format: "module", source, shortCircuit: true };
  }
  return nextLoad(url, context);
}
