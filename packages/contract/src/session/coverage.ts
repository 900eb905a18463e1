/**
 * What a run exercised of the spec, per operation: its parameters, the values of its enum
 * parameters, its response variants, its documented status codes and the relations judged on
 * it; and, for each that was not, why. Every request goes through the session, and the session
 * hands every exchange here (see), so any check or exploration feeds it without doing anything;
 * a check that knows why something was left out says so with explain(), and a relation check
 * records each relation it judged, or could not judge, with relation().
 */
import type { Relations } from "@marketapi/spec/model";
import { type ContractOperation, declaredResponse } from "../core/operations.js";
import { type RoundTrip, variantOf } from "./round-trip.js";
import type { Cell } from "./verdicts.js";

export const COVERAGE_DIMENSIONS = ["parameters", "values", "variants", "statuses", "relations"] as const;
export type CoverageDimension = (typeof COVERAGE_DIMENSIONS)[number];

export interface CoverageItem {
  /** A parameter name, `name=value`, a variant, a documented status ("200", "4XX", "default"), a relation. */
  item: string;
  exercised: boolean;
  /** Requests that carried it and were answered 2xx (parameters, values, variants), answers with it (statuses), judgements (relations). */
  count: number;
  /** Requests that carried it and were refused (4xx): negative data. */
  refused?: number;
  /** Why it was not exercised. */
  why?: string;
}

export interface OperationCoverage {
  operationId: string;
  requests: number;
  parameters: CoverageItem[];
  values: CoverageItem[];
  variants: CoverageItem[];
  statuses: CoverageItem[];
  relations: CoverageItem[];
  /** Statuses answered that the spec does not document for the operation. */
  undocumentedStatuses: Array<{ status: number; count: number }>;
  /** Why no check judged the operation at all (no request, not implemented), when none did. */
  unjudged?: string;
}

export interface CoverageReport {
  operations: OperationCoverage[];
}

interface Tally {
  accepted: number;
  refused: number;
}

interface OperationTally {
  requests: number;
  parameters: Map<string, Tally>;
  values: Map<string, Tally>;
  variants: Map<string, number>;
  statuses: Map<string, number>;
  undocumented: Map<number, number>;
}

const bump = (map: Map<string, Tally>, key: string, accepted: boolean) => {
  const tally = map.get(key) ?? { accepted: 0, refused: 0 };
  if (accepted) tally.accepted += 1;
  else tally.refused += 1;
  map.set(key, tally);
};

/** The enum values a parameter may take (its own enum, or its items' enum for a list). */
function enumOf(operation: ContractOperation, name: string): unknown[] | undefined {
  const schema = operation.parameters.find((p) => p.name === name)?.resolvedSchema;
  return schema?.enum ?? schema?.items?.enum;
}

/** The values of a parameter as sent: one value, or the items of a JSON list (`["A","B"]`). */
function sentValues(text: string): string[] {
  if (!text.startsWith("[")) return [text];
  try {
    const list = JSON.parse(text) as unknown;
    return Array.isArray(list) ? list.map(String) : [text];
  } catch {
    return [text];
  }
}

/** A relation the spec states (x-relations), the operations it is judged on, the check that judges it. */
export interface DeclaredRelation {
  name: string;
  check: string;
  operations: string[];
}

/**
 * Every relation of the document's x-relations, with the operations it is judged on (a relation of
 * trades is also judged on the trade source) and the check that judges its kind.
 */
export function declaredRelations(relations: Relations | undefined): DeclaredRelation[] {
  if (!relations) return [];
  const trades = relations.trades ? [relations.trades.operation] : [];
  const unique = (ids: string[]) => [...new Set(ids)];
  return [
    ...relations.sharedFacts.map((fact) => ({
      name: fact.name,
      check: "shared_facts",
      operations: unique(fact.reports.map((r) => r.operation)),
    })),
    ...relations.tradeWindows.map((window) => ({
      name: window.name,
      check: "trade_statistics",
      operations: unique([window.operation, ...trades]),
    })),
    ...relations.aggregates.map((cover) => ({
      name: cover.name,
      check: "aggregate_cover",
      operations: unique([cover.operation, ...trades]),
    })),
    ...relations.orders.map((views) => ({
      name: views.name,
      check: "order_views",
      operations: unique([...views.reads, ...views.reports, views.open.operation]),
    })),
  ];
}

function variantsOf(operation: ContractOperation): string[] {
  const by = operation.responseVariants;
  if (!by) return [];
  return by.by === "presence" ? ["present", "absent"] : Object.keys(by.refs);
}

export class CoverageRecorder {
  private readonly tallies = new Map<string, OperationTally>();
  /** Reasons by operation, dimension and item ("*": every item of the dimension). */
  private readonly reasons = new Map<string, string>();
  private readonly relations = new Map<string, Map<string, { judged: number; why?: string }>>();

  private readonly declared: DeclaredRelation[];

  constructor(
    private readonly operations: readonly ContractOperation[],
    relations?: Relations,
  ) {
    this.declared = declaredRelations(relations);
  }

  private tally(operationId: string): OperationTally {
    let tally = this.tallies.get(operationId);
    if (!tally) {
      tally = {
        requests: 0,
        parameters: new Map(),
        values: new Map(),
        variants: new Map(),
        statuses: new Map(),
        undocumented: new Map(),
      };
      this.tallies.set(operationId, tally);
    }
    return tally;
  }

  /** Records one exchange: the parameters and values it sent, the variant and status it got. */
  see(exchange: RoundTrip): void {
    const { op } = exchange;
    const tally = this.tally(op.operationId);
    tally.requests += 1;
    const status = exchange.response?.status;
    if (status === undefined) return;
    const accepted = status >= 200 && status < 300;
    const refused = status >= 400 && status < 500;
    if (accepted || refused) {
      const declared = new Set(op.parameters.map((p) => p.name));
      for (const [name, text] of exchange.plan.params) {
        if (!declared.has(name)) continue;
        bump(tally.parameters, name, accepted);
        const allowed = enumOf(op, name);
        if (!allowed) continue;
        for (const value of sentValues(text)) {
          if (allowed.some((v) => String(v) === value)) bump(tally.values, `${name}=${value}`, accepted);
        }
      }
    }
    if (accepted) {
      const variant = variantOf(exchange);
      if (variant !== undefined) tally.variants.set(variant, (tally.variants.get(variant) ?? 0) + 1);
    }
    const response = declaredResponse(op, status);
    if (response) tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
    else tally.undocumented.set(status, (tally.undocumented.get(status) ?? 0) + 1);
  }

  /**
   * Why an item (or, with "*", every item of the dimension) was not exercised on an operation.
   * The first reason given is kept; items that were exercised ignore it.
   */
  explain(operationId: string, dimension: CoverageDimension, item: string, why: string): void {
    const key = `${operationId}\u0000${dimension}\u0000${item}`;
    if (!this.reasons.has(key)) this.reasons.set(key, why);
  }

  /**
   * The values of an enum parameter that the target does not list (exchangeInfo's order types):
   * a run sends them only to see them refused, so each says where the target left it out.
   */
  explainUnlisted(operationId: string, parameter: string, listed: readonly string[], where: string): void {
    const operation = this.operations.find((o) => o.operationId === operationId);
    if (!operation || listed.length === 0) return;
    for (const value of enumOf(operation, parameter) ?? [])
      if (!listed.includes(String(value)))
        this.explain(operationId, "values", `${parameter}=${String(value)}`, `${where} does not list it`);
  }

  /**
   * A relation between operations judged (or not, and why) on each of them. Relation checks call it
   * once per judgement, and with the reason whenever they leave a relation unjudged.
   */
  relation(name: string, operationIds: readonly string[], outcome: { judged: true } | { why: string }): void {
    for (const operationId of operationIds) {
      const byName = this.relations.get(operationId) ?? new Map();
      const entry = byName.get(name) ?? { judged: 0 };
      if ("judged" in outcome) entry.judged += 1;
      else entry.why ??= outcome.why;
      byName.set(name, entry);
      this.relations.set(operationId, byName);
    }
  }

  private reason(operationId: string, dimension: CoverageDimension, item: string): string | undefined {
    return (
      this.reasons.get(`${operationId}\u0000${dimension}\u0000${item}`) ??
      this.reasons.get(`${operationId}\u0000${dimension}\u0000*`)
    );
  }

  /**
   * The report. `cells` give the reason when an operation got no request at all (the reason its
   * checks were skipped for: no credentials, trading not allowed, not implemented).
   */
  report(selected: readonly string[], cells: readonly Cell[]): CoverageReport {
    return {
      operations: this.operations
        .filter((o) => selected.includes(o.operationId))
        .map((o) => this.operationReport(o, cells)),
    };
  }

  private operationReport(operation: ContractOperation, cells: readonly Cell[]): OperationCoverage {
    const id = operation.operationId;
    const tally = this.tally(id);
    // An operation no check judged at all (no request, not implemented): the reason its cells give.
    const own = cells.filter((c) => c.operationId === id);
    const judged = own.some((c) => c.status !== "skipped");
    const unreached =
      tally.requests === 0 || (own.length > 0 && !judged)
        ? (own.find((c) => c.reason)?.reason ?? "no request was sent to it")
        : undefined;
    const item = (
      dimension: CoverageDimension,
      name: string,
      count: number,
      fallback: string,
      refused?: number,
      given?: string,
    ): CoverageItem => {
      const exercised = count > 0;
      // A reason a check gave is the most specific; then why the operation was not judged at all.
      const why = exercised
        ? undefined
        : (this.reason(id, dimension, name) ?? given ?? unreached ?? fallback);
      return {
        item: name,
        exercised,
        count,
        ...(refused !== undefined && refused > 0 ? { refused } : {}),
        ...(why ? { why } : {}),
      };
    };
    const parameters = operation.parameters.map((p) => {
      const t = tally.parameters.get(p.name);
      const fallback = t && t.refused > 0 ? "sent only in requests that were refused" : "no check sends it";
      return item("parameters", p.name, t?.accepted ?? 0, fallback, t?.refused);
    });
    const values = operation.parameters.flatMap((p) =>
      (enumOf(operation, p.name) ?? []).map((v) => {
        const key = `${p.name}=${String(v)}`;
        const t = tally.values.get(key);
        const fallback =
          t && t.refused > 0
            ? "sent only in requests that were refused"
            : tally.parameters.has(p.name)
              ? "no check sends this value"
              : "no check sends the parameter";
        return item("values", key, t?.accepted ?? 0, fallback, t?.refused);
      }),
    );
    const variants = variantsOf(operation).map((v) =>
      item("variants", v, tally.variants.get(v) ?? 0, "no request asked for it"),
    );
    const statuses = operation.responses.map((r) =>
      item("statuses", r.status, tally.statuses.get(r.status) ?? 0, statusFallback(r.status)),
    );
    const recorded = this.relations.get(id) ?? new Map<string, { judged: number; why?: string }>();
    const stated = this.declared.filter((r) => r.operations.includes(id));
    const names = [...new Set([...stated.map((r) => r.name), ...recorded.keys()])];
    const relations = names.map((name) => {
      const entry = recorded.get(name) ?? { judged: 0 };
      const check = stated.find((r) => r.name === name)?.check;
      return item("relations", name, entry.judged, relationFallback(check, id, cells), undefined, entry.why);
    });
    return {
      operationId: id,
      requests: tally.requests,
      parameters,
      values,
      variants,
      statuses,
      relations,
      undocumentedStatuses: [...tally.undocumented.entries()].map(([status, count]) => ({ status, count })),
      ...(unreached ? { unjudged: unreached } : {}),
    };
  }
}

/**
 * Why a stated relation was not judged on an operation, when its check gave no reason: the check
 * was not run, or was skipped there (its reason), or read nothing it could compare.
 */
function relationFallback(check: string | undefined, operationId: string, cells: readonly Cell[]): string {
  if (!check) return "not judged";
  const ofCheck = cells.filter((c) => c.check === check);
  if (cells.length > 0 && ofCheck.length === 0) return `${check} was not run`;
  const cell = ofCheck.find((c) => c.operationId === operationId);
  if (cell?.status === "skipped" && cell.reason && cell.reason !== "not exercised") return cell.reason;
  return `${check} compared no answer of it`;
}

function statusFallback(status: string): string {
  if (status.startsWith("5") || status === "default") return "no server error";
  if (status === "429" || status === "418") return "the run was never rate-limited";
  return "the target never answered it";
}
