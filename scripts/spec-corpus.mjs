// What the corpus tests of codegen and docs share: the public specs of tools/spec-corpus, the fixed
// sample of a large one's operations, and `prism mock` of a spec on 127.0.0.1 with its log (Prism
// says there whether a request passed its validation and how it was answered).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { ensureTool } from "./tools.mjs";
import { root } from "./workspace-packages.mjs";

/** The path of a file of the corpus (`@readme/oas-examples/3.1/json/train-travel.json`), installed on first use. */
export function corpusFile(/** @type {string} */ file) {
  return join(ensureTool("spec-corpus"), "node_modules", file);
}

/**
 * `count` of `items`, the same every run (a fixed seed), in their order; all of them when `count`
 * is undefined or not smaller.
 * @template T
 * @param {T[]} items
 * @param {number | undefined} count
 * @returns {T[]}
 */
export function pickFixed(items, count) {
  if (count === undefined || count >= items.length) return items;
  let seed = 34;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const picked = new Set();
  while (picked.size < count) picked.add(Math.floor(random() * items.length));
  return [...picked].sort((a, b) => a - b).map((i) => items[i]);
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Terminal colour codes, in case Prism writes them despite NO_COLOR. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** The end of Prism's log of one request: the answer it built, or why it refused the request. */
const ANSWERED = /> Responding with "\d+"|Request terminated with error/;

/**
 * `prism mock` of `file` on 127.0.0.1 (Prism of the workspace's node_modules), resolved once it
 * says it listens. `answered(from)` resolves with the log from `from` on once it says how a
 * request was answered. Nothing here waits for a fixed time (a loaded machine only makes Prism
 * slower): each wait ends with the line it waits for or with Prism's exit, and the test runner's
 * hang limit catches a Prism that neither answers nor exits.
 * @param {string} file
 */
export async function startPrism(file) {
  const port = await freePort();
  const prism = join(root, "node_modules", ".bin", "prism");
  const child = spawn(prism, ["mock", file, "--host", "127.0.0.1", "--port", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  const exited = new Promise((resolve) => child.once("exit", () => resolve(undefined)));
  let output = "";
  /** @type {Set<() => void>} */
  const waiting = new Set();
  const collect = (/** @type {Buffer} */ chunk) => {
    output += chunk.toString("utf8").replace(ANSI_COLOUR, "");
    for (const check of waiting) check();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const until = (/** @type {() => boolean} */ test, /** @type {string} */ what) =>
    Promise.race([
      new Promise((resolve) => {
        const check = () => {
          if (!test()) return;
          waiting.delete(check);
          resolve(undefined);
        };
        waiting.add(check);
        check();
      }),
      exited.then(() => {
        if (test()) return;
        throw new Error(
          `Prism exited with ${child.exitCode} before it logged ${what}:\n${output.slice(-2000)}`,
        );
      }),
    ]);
  await until(() => output.includes("Prism is listening"), "that it listens");
  return {
    url: `http://127.0.0.1:${port}`,
    /** How much Prism has logged so far. */
    logged: () => output.length,
    /** @param {number} from */
    answered: async (from) => {
      await until(() => ANSWERED.test(output.slice(from)), "an answer");
      return output.slice(from);
    },
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
