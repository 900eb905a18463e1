// What the benches share: the load generator (autocannon, a devDependency loaded at run time), and
// how figures are printed: the median of repeated runs, whole numbers with thousands separators.
import { createRequire } from "node:module";
import { createServer } from "node:net";

/** The part of autocannon's result the benches read. */
export interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  "2xx": number;
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}

/** The options the benches pass. */
export interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  requests?: readonly unknown[];
  [option: string]: unknown;
}

export const autocannon = createRequire(import.meta.url)("autocannon") as (
  options: AutocannonOptions,
) => Promise<AutocannonResult>;

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A figure rounded to a whole number, with thousands separators. */
export const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

/** A TCP port free on `host` now, for a server the bench starts next. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
