// Answers wait for the end of the event loop's turn and are written together then, except that a
// connection's second answer in a turn writes the waiting ones and itself at once (a pipelining
// client is awake, and held answers would count against its budget), and that no more than 64 wait.
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { writeAtTurnEnd, writeWaitingOn } from "../src/http/turn-end.js";

const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Sockets stand-ins: only their identity matters here. */
const socket = (name: string) => ({ name }) as unknown as Socket;

describe("writeAtTurnEnd", () => {
  it("writes the answers of a turn together once the turn ends, in the order they came", async () => {
    const written: string[] = [];
    const [a, b, c] = [socket("a"), socket("b"), socket("c")];
    writeAtTurnEnd(a, () => written.push("a"));
    writeAtTurnEnd(b, () => written.push("b"));
    writeAtTurnEnd(c, () => written.push("c"));
    expect(written).toEqual([]);
    await endOfTurn();
    expect(written).toEqual(["a", "b", "c"]);
  });

  it("writes at once, after the waiting answers, a connection's second answer of the turn", async () => {
    const written: string[] = [];
    const [a, b] = [socket("a"), socket("b")];
    writeAtTurnEnd(a, () => written.push("a1"));
    writeAtTurnEnd(b, () => written.push("b1"));
    writeAtTurnEnd(a, () => written.push("a2"));
    expect(written).toEqual(["a1", "b1", "a2"]);
    writeAtTurnEnd(b, () => written.push("b2"));
    expect(written).toEqual(["a1", "b1", "a2"]);
    await endOfTurn();
    expect(written).toEqual(["a1", "b1", "a2", "b2"]);
  });

  it("lets at most 64 answers wait", async () => {
    const written: number[] = [];
    for (let i = 0; i < 63; i += 1) writeAtTurnEnd(socket(`s${i}`), () => written.push(i));
    expect(written).toHaveLength(0);
    writeAtTurnEnd(socket("s63"), () => written.push(63));
    expect(written).toHaveLength(64);
    writeAtTurnEnd(socket("s64"), () => written.push(64));
    expect(written).toHaveLength(64);
    await endOfTurn();
    expect(written).toEqual(Array.from({ length: 65 }, (_, i) => i));
  });
});

describe("writeWaitingOn", () => {
  it("writes the waiting answers when one is on the socket about to be answered, else nothing", async () => {
    const written: string[] = [];
    const [a, b] = [socket("a"), socket("b")];
    writeAtTurnEnd(a, () => written.push("a1"));
    writeWaitingOn(b);
    expect(written).toEqual([]);
    writeWaitingOn(a);
    expect(written).toEqual(["a1"]);
    await endOfTurn();
    expect(written).toEqual(["a1"]);
  });
});
