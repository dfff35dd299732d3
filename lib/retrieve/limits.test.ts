import { describe, expect, it } from "vitest";
import { MAX_QUERY_CHARS } from "@/lib/limits";
import { fitQuery } from "./limits";

describe("fitQuery", () => {
  it("keeps a short query as it is, and a long one's end from a word start, within the limit", () => {
    expect(fitQuery("  annual leave?  ")).toBe("annual leave?");
    const long = `${"background words here ".repeat(100)}How many days of annual leave do I get?`;
    const fitted = fitQuery(long);
    expect(fitted.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(fitted.endsWith("How many days of annual leave do I get?")).toBe(true);
    expect(long).toContain(` ${fitted}`); // starts at a word
    const zh = `${"背景说明很长。".repeat(300)}病假需要什么证明？`;
    expect(fitQuery(zh).length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(fitQuery(zh).endsWith("病假需要什么证明？")).toBe(true);
  });
});
