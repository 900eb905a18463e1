// Prism as a validating proxy in front of a server: started on a free loopback port, its log
// kept, and the violations it reports collected from its `sl-violations` headers and its log.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

export interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

export interface PrismProxy {
  url: string;
  /** Everything Prism wrote, stdout and stderr. */
  log(): string;
  close(): Promise<void>;
}

/** A port that was free a moment ago (the OS picks it; Prism takes no port 0). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

const prismBin = new URL("../../../node_modules/.bin/prism", import.meta.url).pathname;

/**
 * Starts `prism proxy <spec> <upstream>`; resolves once it says it listens, rejects if it exits
 * first. No clock is read: on a loaded machine Prism takes as long as it takes to start, and only
 * the test's own time limit, set for hangs, stops a Prism that never does.
 */
export function startPrismProxy(specPath: string, upstream: string): Promise<PrismProxy> {
  return startPrism(["proxy", specPath, upstream]);
}

/** Starts `prism mock --dynamic <spec>`: answers generated from the schemas. */
export function startPrismMock(specPath: string): Promise<PrismProxy> {
  return startPrism(["mock", "--dynamic", specPath]);
}

async function startPrism(command: string[]): Promise<PrismProxy> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await launch(command, port);
    } catch (error) {
      // Another process may have taken the port between the probe and Prism's listen.
      if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

function launch(command: string[], port: number): Promise<PrismProxy> {
  const args = [...command, "--host", "127.0.0.1", "--port", String(port)];
  const child: ChildProcess = spawn(prismBin, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const proxy: PrismProxy = {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    close: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("Prism is listening")) resolve(proxy);
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("exit", (code) => reject(new Error(`Prism exited with ${code} before listening:\n${output}`)));
  });
}

/** The violations of one `sl-violations` header (a JSON array), or none. */
export function violationsOf(header: string | undefined): Violation[] {
  if (!header) return [];
  const parsed = JSON.parse(header) as Violation[];
  return Array.isArray(parsed) ? parsed : [];
}

/** The "Violation: response…" lines of Prism's log. */
export function responseViolationLines(log: string): string[] {
  return log.split("\n").filter((line) => /Violation: response/.test(line));
}
