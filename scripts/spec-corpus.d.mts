// Types of spec-corpus.mjs, for the TypeScript tests that import it.
export function corpusFile(file: string): string;
export function pickFixed<T>(items: T[], count: number | undefined): T[];
export interface Prism {
  url: string;
  /** How much Prism has logged so far. */
  logged(): number;
  /** Resolves with Prism's log from `from` on once it says how a request was answered. */
  answered(from: number): Promise<string>;
  stop(): Promise<void>;
}
export function startPrism(file: string): Promise<Prism>;
