// The diff on the history of real APIs: consecutive releases of vendors' OpenAPI documents, as
// their authors publish them on npm (tools/diff-releases: @blockfrost/openapi, @directus/specs,
// OpenAPI 3.0, read as codegen and the docs read them), compared in both directions, against
// verdicts judged by hand from the documents' own differences (each written beside its pair).
// The default run holds two pairs; MARKETAPI_CORPUS_FULL=1 runs them all.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type ChangeCounts, diffDocuments, loadSpec } from "../src/index.js";

const repoDir = join(import.meta.dirname, "..", "..", "..");
const { ensureTool } = (await import(pathToFileURL(join(repoDir, "scripts", "tools.mjs")).href)) as {
  ensureTool(name: string): string;
};

interface Verdict {
  counts: ChangeCounts;
  /** Every change that is not informational, as "class kind pointer" (omitted for long lists). */
  changes?: string[];
}

interface Pair {
  old: string;
  new: string;
  /** What changed, read from the two documents by hand, and why the verdicts are right. */
  why: string;
  forward: Verdict;
  backward: Verdict;
  /** Part of the default run. */
  sample?: true;
}

const counts = (breaking: number, compatible: number, informational: number): ChangeCounts => ({
  breaking,
  undecided: 0,
  compatible,
  informational,
});

const PAIRS: Pair[] = [
  {
    old: "blockfrost-0.1.82/openapi.yaml",
    new: "blockfrost-0.1.84/openapi.yaml",
    why: "drep_metadata.bytes became nullable and gained an optional error object; the script type enum gained plutusV3; three era times became integers where they were numbers. Clients meet null and a new enum value (breaking), an extra property (compatible), integers where numbers were allowed (compatible). Backwards: the error object is gone and numbers may be fractional again (breaking); null and plutusV3 no longer sent (compatible).",
    forward: {
      counts: counts(2, 4, 1),
      changes: [
        "breaking type-wider /components/schemas/drep_metadata/properties/bytes/type",
        "breaking enum-wider /components/schemas/script/properties/type/enum",
        "compatible property-added /components/schemas/drep_metadata/properties/error",
        "compatible type-narrower /components/schemas/network-eras/items/properties/end/properties/time/type",
        "compatible type-narrower /components/schemas/network-eras/items/properties/parameters/properties/slot_length/type",
        "compatible type-narrower /components/schemas/network-eras/items/properties/start/properties/time/type",
      ],
    },
    backward: {
      counts: counts(4, 2, 1),
      changes: [
        "breaking property-removed /components/schemas/drep_metadata/properties/error",
        "breaking type-wider /components/schemas/network-eras/items/properties/end/properties/time/type",
        "breaking type-wider /components/schemas/network-eras/items/properties/parameters/properties/slot_length/type",
        "breaking type-wider /components/schemas/network-eras/items/properties/start/properties/time/type",
        "compatible type-narrower /components/schemas/drep_metadata/properties/bytes/type",
        "compatible enum-narrower /components/schemas/script/properties/type/enum",
      ],
    },
    sample: true,
  },
  {
    old: "blockfrost-0.1.92/openapi.yaml",
    new: "blockfrost-0.1.93/openapi.yaml",
    why: "proposal votes gained a required counted flag (an answer that always carries more: compatible), an example and a description changed. Backwards the flag disappears from answers: breaking.",
    forward: {
      counts: counts(0, 2, 3),
      changes: [
        "compatible property-added /components/schemas/proposal_votes/items/properties/counted",
        "compatible property-became-required /components/schemas/proposal_votes/items/required",
      ],
    },
    backward: {
      counts: counts(2, 0, 3),
      changes: [
        "breaking property-removed /components/schemas/proposal_votes/items/properties/counted",
        "breaking property-became-optional /components/schemas/proposal_votes/items/required",
      ],
    },
  },
  {
    old: "directus-11.0.0/dist/openapi.json",
    new: "directus-11.2.0/dist/openapi.json",
    why: "comments moved from /activity/comment to /comments (same operationIds: moved, breaking), the activity record lost six properties, a comment's id became a string, an extension operation was renamed; new comment operations and properties are compatible. Backwards the moves and removals turn round.",
    forward: { counts: counts(18, 19, 21) },
    backward: { counts: counts(27, 10, 21) },
  },
  {
    old: "directus-11.2.0/dist/openapi.json",
    new: "directus-12.0.0/dist/openapi.json",
    why: "a major release that removed the seven /webhooks operations (Directus replaced webhooks by flows) and their tag; backwards they are added.",
    forward: {
      counts: counts(7, 0, 1),
      changes: [
        "/paths/~1webhooks/delete",
        "/paths/~1webhooks~1{id}/delete",
        "/paths/~1webhooks/get",
        "/paths/~1webhooks~1{id}/get",
        "/paths/~1webhooks/patch",
        "/paths/~1webhooks~1{id}/patch",
        "/paths/~1webhooks/post",
      ].map((pointer) => `breaking operation-removed ${pointer}`),
    },
    backward: { counts: counts(0, 7, 1) },
  },
  {
    old: "directus-13.0.0/dist/openapi.json",
    new: "directus-14.0.0/dist/openapi.json",
    why: "getItems gained an optional query parameter (compatible) and three descriptions changed; backwards the parameter is removed, which clients that send it are refused for.",
    forward: {
      counts: counts(0, 1, 3),
      changes: ["compatible parameter-added-optional /paths/~1items~1{collection}/get/parameters/7"],
    },
    backward: {
      counts: counts(1, 0, 3),
      changes: ["breaking optional-parameter-removed /paths/~1items~1{collection}/get/parameters/7"],
    },
  },
  {
    old: "directus-14.0.0/dist/openapi.json",
    new: "directus-15.0.0/dist/openapi.json",
    why: "a major release that removed /utils/hash/generate and /utils/hash/verify; backwards they are added.",
    forward: {
      counts: counts(2, 0, 0),
      changes: [
        "breaking operation-removed /paths/~1utils~1hash~1generate/post",
        "breaking operation-removed /paths/~1utils~1hash~1verify/post",
      ],
    },
    backward: {
      counts: counts(0, 2, 0),
      changes: [
        "compatible operation-added /paths/~1utils~1hash~1generate/post",
        "compatible operation-added /paths/~1utils~1hash~1verify/post",
      ],
    },
    sample: true,
  },
];

const full = process.env.MARKETAPI_CORPUS_FULL === "1";
const chosen = PAIRS.filter((pair) => full || pair.sample);
const releases = () => join(ensureTool("diff-releases"), "node_modules");
/** Each document read once (a release is in two pairs, each compared both ways; YAML costs seconds). */
const loaded = new Map<string, ReturnType<typeof loadSpec>>();
const read = (file: string) => {
  const known = loaded.get(file) ?? loadSpec(join(releases(), file));
  loaded.set(file, known);
  return known;
};

describe("the diff on consecutive releases of vendors' specs, both ways", () => {
  const rows = chosen.flatMap((pair) => [
    { name: `${pair.old} → ${pair.new}`, from: pair.old, to: pair.new, want: pair.forward },
    { name: `${pair.new} → ${pair.old}`, from: pair.new, to: pair.old, want: pair.backward },
  ]);
  it.each(rows)("$name", ({ from, to, want }) => {
    const before = read(from);
    const after = read(to);
    expect(before.upgradedFrom, "the releases are OpenAPI 3.0, read upgraded").toMatch(/^3\.0\./);
    const changes = diffDocuments(before.document, after.document);
    const got: ChangeCounts = { breaking: 0, undecided: 0, compatible: 0, informational: 0 };
    for (const change of changes) got[change.class]++;
    const listed = changes.map((c) => `${c.class} ${c.kind} ${c.pointer}: ${c.message}`).join("\n");
    expect(got, listed).toEqual(want.counts);
    if (want.changes) {
      const judged = changes
        .filter((c) => c.class !== "informational")
        .map((c) => `${c.class} ${c.kind} ${c.pointer}`);
      expect(judged.sort()).toEqual([...want.changes].sort());
    }
  });
});
