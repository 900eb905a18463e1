// Released versions of the API, one folder per version (`<releases>/<version>/<file>`), and what
// is decided from them: the gate (may specs/ be what it is, given the last release?) and the API
// changelog (what changed from each release to the next).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type LoadedSpec, type LoadOptions, SpecError } from "@marketapi/spec-loader";
import type { Change } from "./change.js";
import { diffDocuments } from "./diff.js";
import { loadSpec } from "./load-document.js";
import { type Compared, renderText } from "./render.js";
import {
  atLeast,
  type Bump,
  bumpBetween,
  bumped,
  compareVersions,
  parseVersion,
  requiredBump,
} from "./versions.js";

export interface Release {
  version: string;
  spec: LoadedSpec;
}

/** Every release in `dir`, oldest first. Each folder is named by its version and holds `file`, whose info.version says the same. */
export function readReleases(dir: string, file: string, options: LoadOptions = {}): Release[] {
  if (!existsSync(dir)) return [];
  const releases: Release[] = [];
  for (const name of readdirSync(dir)) {
    const folder = join(dir, name);
    if (!statSync(folder).isDirectory()) continue;
    if (!parseVersion(name))
      throw new SpecError(folder, "", "a folder named by a semver version (1.2.0)", JSON.stringify(name));
    const spec = loadSpec(join(folder, file), options);
    if (spec.document.info.version !== name) {
      const fault = new SpecError(
        spec.source,
        "/info/version",
        `"${name}", the version its folder names`,
        JSON.stringify(spec.document.info.version),
      );
      const at = spec.locate?.("/info/version");
      throw at ? fault.locate(at.line, at.column) : fault;
    }
    releases.push({ version: name, spec });
  }
  return releases.sort((a, b) => compareVersions(parseVersion(a.version)!, parseVersion(b.version)!));
}

export interface GateVerdict {
  ok: boolean;
  /** What the gate found and, when it fails, how to proceed. */
  message: string;
  changes: Change[];
  /** The least bump of info.version these changes need. */
  needed: Bump;
}

/**
 * Checks `current` against the last release. Always: info.version is semver, not lower than the
 * last release, and a breaking change comes with a major bump. With `release`, also: any change
 * comes with a bump at least as large as it needs (a version is released once).
 */
export function gate(releases: Release[], current: LoadedSpec, { release = false } = {}): GateVerdict {
  const last = releases.at(-1);
  const version = String(current.document.info.version);
  const parsed = parseVersion(version);
  const fail = (message: string, changes: Change[] = [], needed: Bump = "none"): GateVerdict => ({
    ok: false,
    message,
    changes,
    needed,
  });
  if (!parsed)
    return fail(
      `${current.source}#/info/version: expected a semver version (MAJOR.MINOR.PATCH), found ${JSON.stringify(version)}`,
    );
  if (!last)
    return {
      ok: true,
      message: `no released API version yet; ${version} is recorded at the first release`,
      changes: [],
      needed: "none",
    };
  const lastVersion = parseVersion(last.version)!;
  const changes = diffDocuments(last.spec.document, current.document);
  const needed = requiredBump(changes);
  const compared: Compared = {
    old: { source: last.spec.source, version: last.version },
    new: { source: current.source, version },
    changes,
  };
  if (compareVersions(parsed, lastVersion) < 0) {
    return fail(
      `${current.source}#/info/version is ${version}, lower than the last released API version ${last.version}`,
      changes,
      needed,
    );
  }
  const bump = bumpBetween(lastVersion, parsed);
  const breaking = changes.filter((c) => c.class === "breaking");
  if (breaking.length > 0 && bump !== "major") {
    const major = bumped(lastVersion, "major");
    return fail(
      [
        `${breaking.length} breaking change(s) since the released API ${last.version}, but info.version is ${version}, not a major bump:`,
        "",
        renderText({ ...compared, changes: breaking }).trimEnd(),
        "",
        "How to proceed:",
        `  - if the change was not meant to break clients, undo it (run \`marketapi-diff ${last.spec.source} ${current.source}\` to see every change);`,
        `  - if it was, set info.version in ${current.source} to ${major} and add a changeset (\`npx changeset\`, major for @marketapi/spec) that says what broke and how clients move on.`,
      ].join("\n"),
      changes,
      needed,
    );
  }
  if (release && !atLeast(bump, needed)) {
    return fail(
      `${current.source} changed since the released API ${last.version} (${needed} changes), but info.version ${version} is ${bump === "none" ? "the same" : `only a ${bump} bump`}: set it to ${bumped(lastVersion, needed)} or higher before releasing`,
      changes,
      needed,
    );
  }
  const pending =
    changes.length === 0
      ? "no changes"
      : `${renderText(compared).split("\n")[0]!.split(": ").pop()}; the next release needs at least a ${needed} bump`;
  return {
    ok: true,
    message: `API ${version} against the released ${last.version}: ${pending}`,
    changes,
    needed,
  };
}

export interface ChangelogEntry {
  version: string;
  /** The release before it; absent for the first. */
  previous?: string;
  changes: Change[];
}

/** What changed in each release, newest first. */
export function changelogOf(releases: Release[]): ChangelogEntry[] {
  return releases
    .map((release, index) => {
      const before = releases[index - 1];
      return before
        ? {
            version: release.version,
            previous: before.version,
            changes: diffDocuments(before.spec.document, release.spec.document),
          }
        : { version: release.version, changes: [] };
    })
    .reverse();
}
