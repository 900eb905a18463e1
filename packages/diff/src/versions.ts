// info.version is the API's semver: a breaking change needs a major bump, a compatible one a
// minor, an informational one a patch. The gate and the release record apply these rules.
import type { Change } from "./change.js";

export type Bump = "major" | "minor" | "patch" | "none";
const ORDER: Bump[] = ["none", "patch", "minor", "major"];

export interface Version {
  major: number;
  minor: number;
  patch: number;
  prerelease: string;
}

export function parseVersion(text: string): Version | undefined {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(
    text,
  );
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4] ?? "",
  };
}

/** Negative, zero or positive as a is lower, equal or higher than b (semver precedence, simplified for prereleases). */
export function compareVersions(a: Version, b: Version): number {
  return (
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    (a.prerelease === b.prerelease
      ? 0
      : a.prerelease === ""
        ? 1
        : b.prerelease === ""
          ? -1
          : a.prerelease < b.prerelease
            ? -1
            : 1)
  );
}

/** The bump from one version to a higher one. */
export function bumpBetween(from: Version, to: Version): Bump {
  if (to.major > from.major) return "major";
  if (to.minor > from.minor) return "minor";
  if (compareVersions(to, from) > 0) return "patch";
  return "none";
}

/** The least bump the changes need. */
export function requiredBump(changes: Change[]): Bump {
  // A change the diff cannot decide may break clients: the gate asks for what a break asks.
  if (changes.some((c) => c.class === "breaking" || c.class === "undecided")) return "major";
  if (changes.some((c) => c.class === "compatible")) return "minor";
  return changes.length > 0 ? "patch" : "none";
}

export const atLeast = (bump: Bump, needed: Bump): boolean => ORDER.indexOf(bump) >= ORDER.indexOf(needed);

/** The version a bump leads to. */
export function bumped(from: Version, bump: Bump): string {
  if (bump === "major") return `${from.major + 1}.0.0`;
  if (bump === "minor") return `${from.major}.${from.minor + 1}.0`;
  if (bump === "patch") return `${from.major}.${from.minor}.${from.patch + 1}`;
  return `${from.major}.${from.minor}.${from.patch}`;
}
