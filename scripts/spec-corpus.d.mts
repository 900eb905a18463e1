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
/** A vendor's document of the corpus (VENDOR_SPECS). */
export interface VendorSpec {
  /** The document's `info.title`. */
  title: string;
  /** The file inside tools/spec-corpus's node_modules (package, then path). */
  file: string;
  /** The version the document declares. */
  openapi: string;
  /** How many operations its paths hold. */
  operations: number;
  /** The file's size. */
  bytes: number;
  /** What it brings that the others do not. */
  why: string;
}
export const VENDOR_SPECS: Readonly<Record<string, VendorSpec>>;
/** The path of a vendor's document by its id in VENDOR_SPECS, installed on first use. */
export function vendorSpec(id: string): string;
