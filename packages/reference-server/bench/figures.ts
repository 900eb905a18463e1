// What every bench prints its figures with: the median of repeated runs, and whole numbers with
// thousands separators.

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
