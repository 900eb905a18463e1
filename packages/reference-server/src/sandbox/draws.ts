/** Draws from the engine's seeded generator that the simulated market needs beyond uniform ones. */
import type { Random } from "../engine/random.js";

/** A standard normal draw (Marsaglia's polar method: no trigonometry, so the same on every platform). */
export function gaussian(random: Random): number {
  for (;;) {
    const u = 2 * random.next() - 1;
    const v = 2 * random.next() - 1;
    const s = u * u + v * v;
    if (s > 0 && s < 1) return u * Math.sqrt((-2 * Math.log(s)) / s);
  }
}

/** A Poisson draw with mean `mean` (by inversion: the means here are a few at most). */
export function poisson(random: Random, mean: number): number {
  const limit = Math.exp(-mean);
  let count = 0;
  let product = random.next();
  while (product > limit) {
    count += 1;
    product *= random.next();
  }
  return count;
}
