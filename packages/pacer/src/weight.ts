// The weight of one request, by the spec's `x-weight` and its parameter tiers.

/** One step of a weight that grows with a parameter: values up to `upTo` weigh `weight`. */
export interface WeightTier {
  readonly upTo: number;
  readonly weight: number;
}

/**
 * An operation's request weight as the spec states it (`x-weight`, read by `@marketapi/spec/model`
 * into `Operation.weightRule`; the generated client carries it per operation): `weight` is the
 * common case; where the weight depends on one parameter, `parameter` names it, `absent` is the
 * weight without it, and `tiers` give the weight by its value (a number, or the count of a list).
 */
export interface WeightRule {
  readonly weight: number;
  readonly parameter?: string;
  readonly absent?: number;
  readonly tiers?: readonly WeightTier[];
}

/**
 * The weight of a request with these parameters. Without the rule's parameter: `absent`, else
 * `weight`. With it, by tiers: the first tier whose `upTo` is at least the value (a number or a
 * numeric string; a list counts its items), the last tier's above them all; without tiers, or for
 * a value that is no number, `weight`.
 */
export function requestWeight(rule: number | WeightRule, params?: Readonly<Record<string, unknown>>): number {
  if (typeof rule === "number") return rule;
  if (rule.parameter === undefined) return rule.weight;
  const value = params?.[rule.parameter];
  if (value === undefined || value === null) return rule.absent ?? rule.weight;
  const tiers = rule.tiers;
  if (!tiers || tiers.length === 0) return rule.weight;
  const size = Array.isArray(value) ? value.length : Number(value);
  if (!Number.isFinite(size)) return rule.weight;
  for (const tier of tiers) if (size <= tier.upTo) return tier.weight;
  return tiers[tiers.length - 1]!.weight;
}
