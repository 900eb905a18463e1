/**
 * The newest page of an account's order list (all_orders with no cursor and no window: the spec's
 * "otherwise the most recent"), judged against the orders known to be the account's: the orders a
 * run placed, or those a record remembered. The account may hold more than is known (orders from
 * before, or from another client of it), so counts are lower bounds: the page holds `limit`
 * orders, or every order when the account has fewer. Being the newest, it leaves out no known
 * order newer than its oldest one, and when it is not full it leaves out none at all. Its ids run
 * in the list's stated direction. order_views judges a run's newest pages with it, recall the
 * same page after a restart. Pure.
 */
import type { SortDirection } from "@marketapi/spec/model";
import type { ContractOperation } from "../core/operations.js";
import { valueAt } from "./behaviour-support.js";

export interface PageFinding {
  subject: string;
  message: string;
}

export interface NewestPage {
  symbol: string;
  /** The limit asked for. */
  limit: number;
  /** The ids of the page's items, as listed. */
  ids: readonly number[];
  /** The list's stated order of ids (x-list-order), when it states one. */
  direction?: SortDirection;
}

/** `known`: ids of the account's orders on the symbol; `whose`: how they are known ("remembered"). */
export function judgeNewestPage(page: NewestPage, known: readonly number[], whose: string): PageFinding[] {
  const { symbol, limit, ids } = page;
  const subject = `${symbol} all_orders (newest ${limit})`;
  const findings: PageFinding[] = [];
  const distinct = new Set(known);
  const want = Math.min(limit, distinct.size);
  if (ids.length < want)
    findings.push({
      subject,
      message: `${ids.length} order(s), but the account has the ${distinct.size} ${whose}, so the newest page holds ${want}`,
    });
  if (ids.length > limit)
    findings.push({ subject, message: `${ids.length} order(s), more than its limit ${limit}` });
  const listed = new Set(ids);
  const oldest = ids.length > 0 ? Math.min(...ids) : Number.POSITIVE_INFINITY;
  const full = ids.length >= limit;
  const missing = [...distinct]
    .filter((id) => !listed.has(id) && (!full || id > oldest))
    .sort((a, b) => a - b);
  if (missing.length > 0)
    findings.push({
      subject,
      message: full
        ? `leaves out order(s) ${shown(missing)} ${whose}, newer than its oldest (${oldest}): the newest page holds the newest orders`
        : `leaves out order(s) ${shown(missing)} ${whose}, though it holds fewer than its limit (so every order of the account)`,
    });
  const step = page.direction === "descending" ? -1 : page.direction === "ascending" ? 1 : 0;
  const turn = step === 0 ? -1 : ids.findIndex((id, i) => i > 0 && (id - ids[i - 1]!) * step <= 0);
  if (turn > 0)
    findings.push({
      subject,
      message: `orderId ${ids[turn]} follows ${ids[turn - 1]}: the list is stated ${page.direction} by orderId`,
    });
  return findings;
}

function shown(ids: readonly number[]): string {
  return ids.length > 5 ? `${ids.slice(0, 5).join(", ")} and ${ids.length - 5} more` : ids.join(", ");
}

/**
 * The page an answer of `operation` holds, read by the id its cursor pages by (x-cursor-paging)
 * and in the order x-list-order states for it; undefined when the answer is not a list of ids.
 */
export function newestPageOf(
  operation: ContractOperation,
  symbol: string,
  limit: number,
  json: unknown,
): NewestPage | undefined {
  const field = operation.behaviour.cursorPaging?.field ?? "/orderId";
  if (!Array.isArray(json)) return undefined;
  const ids = json.map((item) => valueAt(item, field));
  if (!ids.every((id): id is number => typeof id === "number")) return undefined;
  const direction = operation.behaviour.listOrder?.lists.find(
    (l) => l.list === "" && l.field === field,
  )?.direction;
  return { symbol, limit, ids, ...(direction ? { direction } : {}) };
}

/** Where all_orders has one: the limit, its largest, and whether no cursor and no window mean "the newest". */
export function newestPageLimit(operation: ContractOperation): number | undefined {
  const limit = operation.behaviour.limit;
  const window = operation.behaviour.timeWindow;
  if (!limit || (window !== undefined && window.neither !== "newest")) return undefined;
  return limit.maximum;
}
