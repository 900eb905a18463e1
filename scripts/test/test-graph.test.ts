// `npm test` runs the repository tests as turbo's root task test:repository, beside the package
// tests (scripts/test-all.mjs). They pack, install and release every built package, so turbo must
// start them only once each package that has a build is built: turbo.json names each build, and a
// package added without its name there would be packed from a missing or stale dist/.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root, workspacePackages } from "../workspace-packages.mjs";

/** The builds turbo.json makes the root task test:repository wait for. */
function awaitedBuilds(turboJson: string): string[] {
  const task = JSON.parse(turboJson).tasks["//#test:repository"];
  if (task === undefined) throw new Error("turbo.json has no task //#test:repository");
  return [...(task.dependsOn as string[])].sort();
}

describe("turbo's root task test:repository", () => {
  it("waits for the build of every workspace package that has one", () => {
    const builds = workspacePackages()
      .filter(({ manifest }) => manifest.scripts?.build !== undefined)
      .map(({ manifest }) => `${manifest.name}#build`)
      .sort();
    expect(builds.length).toBeGreaterThan(0);
    expect(awaitedBuilds(readFileSync(join(root, "turbo.json"), "utf8"))).toEqual(builds);
  });
});
