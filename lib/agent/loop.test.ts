import { describe, expect, it } from "vitest";
import { callKey, LoopDetector } from "./loop";

describe("LoopDetector", () => {
  it("trips on the same tool with the same arguments twice in a turn", () => {
    const d = new LoopDetector();
    expect(d.check("search_knowledge", { query: "annual leave", top_k: 5 })).toBe(false);
    expect(d.tripped).toBe(false);
    expect(d.check("search_knowledge", { query: "sick leave", top_k: 5 })).toBe(false);
    expect(d.check("read_document", { query: "annual leave", top_k: 5 })).toBe(false);
    expect(d.tripped).toBe(false);
    // Same call again, keys in another order, different case and spacing.
    expect(d.check("search_knowledge", { top_k: 5, query: "  Annual   leave " })).toBe(true);
    expect(d.tripped).toBe(true);
  });

  it("treats different arguments as different calls", () => {
    const d = new LoopDetector();
    expect(d.check("search_knowledge", { query: "leave", top_k: 5 })).toBe(false);
    expect(d.check("search_knowledge", { query: "leave", top_k: 8 })).toBe(false);
    expect(d.check("search_knowledge", { query: "leave" })).toBe(false);
    expect(d.check("search_knowledge", { query: "leave", kb: "hr" })).toBe(false);
    expect(d.tripped).toBe(false);
  });

  it("builds canonical keys", () => {
    expect(callKey("t", { b: [1, "X"], a: { d: null, c: true } })).toBe(callKey("t", { a: { c: true, d: null }, b: [1, "x"] }));
    expect(callKey("t", { a: 1, b: undefined })).toBe(callKey("t", { a: 1 }));
    expect(callKey("t", { a: 1 })).not.toBe(callKey("u", { a: 1 }));
  });
});
