// x-relations in the docs: the facts two or more operations report, as lists under one heading.
import type { Relations, SpecModel, WindowBounds, WindowMeasure } from "@marketapi/spec/model";
import { bulletList, code, text } from "../markdown.js";

export const RELATIONS_SECTION_TITLE = "Relations between operations";

const MEASURE_WORDS: Record<WindowMeasure, string> = {
  count: "the number of trades",
  firstId: "the first trade's id",
  lastId: "the last trade's id",
  firstPrice: "the first trade's price",
  lastPrice: "the last trade's price",
  lastQty: "the last trade's quantity",
  lastTime: "the last trade's time",
  highPrice: "the highest price",
  lowPrice: "the lowest price",
  volume: "Σ qty",
  quoteVolume: "Σ quoteQty",
  weightedAverage: "Σ quoteQty / Σ qty",
  change: "last price − first price",
  changePercent: "(last price − first price) / first price × 100",
};

const source = (relations: Relations) =>
  relations.filledFrom === "live-api" ? "filled from the live API" : "from the source document";

function boundsWords(bounds: WindowBounds): string {
  return "minutes" in bounds
    ? `the last ${code(bounds.minutes)} minutes before the answer`
    : `from ${code(bounds.start)} to ${code(bounds.end)}, both included`;
}

const pairs = (values: Readonly<Record<string, string | undefined>>) =>
  Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, pointer]) => `${text(name)} ${code(pointer)}`)
    .join(", ");

/** The `x-relations` section of the API description; undefined when the document states none. */
export function relationsMarkdown(model: Pick<SpecModel, "relations">): string | undefined {
  const relations = model.relations;
  if (!relations) return undefined;
  const parts = [
    `## ${RELATIONS_SECTION_TITLE}`,
    [
      `Facts that two or more operations report, each stated once in ${code("x-relations")} (${source(relations)}).`,
      relations.trades
        ? `Trades are those ${code(relations.trades.operation)} lists (${pairs(relations.trades.fields)}).`
        : "",
      relations.book
        ? `The book is ${code(relations.book.operation)}'s, and its ${code(relations.book.version)} changes with every change of the book.`
        : "",
      "Reads are compared only when what moves the fact (the book's version, the newest trade id, the order itself) shows that nothing changed between them.",
    ]
      .filter((sentence) => sentence !== "")
      .join(" "),
  ];
  // Lists, not tables: each relation names several pointers, and a table of them is wider than
  // the page's middle column at any width (their code tokens cannot break).
  if (relations.sharedFacts.length > 0)
    parts.push(
      "**The same fact from several operations**: every report holds the same values.",
      bulletList(
        relations.sharedFacts.map(
          (fact) =>
            `${text(fact.name)}, which moves with ${fact.movesWith === "book" ? "the book" : "the trades"}: ${fact.reports
              .map(
                (report) =>
                  `${code(report.operation)}${report.item ? ` (the ${report.item} item)` : ""} ${pairs(report.values)}`,
              )
              .join("; ")}.`,
        ),
      ),
    );
  if (relations.tradeWindows.length > 0)
    parts.push(
      "**Statistics of the trades in a window**: each value is the function of the trades whose time falls in the window; a quotient is exact to the last decimal place shown.",
      bulletList(
        relations.tradeWindows.map((window) => {
          const measures = Object.entries(window.measures)
            .map(
              ([measure, pointer]) =>
                `${code(pointer ?? "")} is ${text(MEASURE_WORDS[measure as WindowMeasure])}`,
            )
            .join("; ");
          const empty =
            Object.entries(window.empty)
              .map(([pointer, value]) => `${code(pointer)} ${value}`)
              .join(", ") || "not stated";
          return `${text(window.name)}, ${code(window.operation)}; the window: ${boundsWords(window.window)}. ${measures}. Without trades: ${empty}.`;
        }),
      ),
    );
  if (relations.aggregates.length > 0)
    parts.push(
      "**Aggregates covering trades**: each item covers the trades with ids from its first to its last, the items of a list follow each other without gaps or overlaps, every covered trade has the item's shared values, and the item holds the sums.",
      bulletList(
        relations.aggregates.map(
          (cover) =>
            `${text(cover.name)}, ${code(cover.operation)}: trade ids ${code(cover.first)} to ${code(cover.last)}; the same on every trade: ${pairs(cover.same)}; sums: ${pairs(cover.sums)}.`,
        ),
      ),
    );
  for (const views of relations.orders)
    parts.push(
      `**${text(views.name)}, as each operation reports it** (by ${code(views.id)}): ${views.fields.map((f) => code(f)).join(", ")} are the same in every read (${views.reads.map((o) => code(o)).join(", ")}) and in the report of a placement or cancel (${views.reports.map((o) => code(o)).join(", ")}) at the same moment; ${code(views.open.operation)} lists exactly the orders whose status is ${views.open.statuses.map((s) => code(s)).join(" or ")}; an order in ${views.final.map((s) => code(s)).join(", ")} never changes again.`,
    );
  return parts.join("\n\n");
}
