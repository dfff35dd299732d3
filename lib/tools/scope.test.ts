import { describe, expect, it } from "vitest";
import { MAX_SCOPE_DOCUMENTS, scopedDocuments, withAttached } from "./scope";

describe("a question's scope", () => {
  it("is the picked documents plus the attached ones, once each, capped", () => {
    expect(withAttached([], ["memo"])).toEqual(["memo"]);
    expect(withAttached(["a", "b"], ["b", "memo"])).toEqual(["a", "b", "memo"]);
    const many = Array.from({ length: MAX_SCOPE_DOCUMENTS }, (_, i) => `d${i}`);
    expect(withAttached(many, ["memo"])).toHaveLength(MAX_SCOPE_DOCUMENTS);
  });

  it("limits a tool's requested documents to the chat's scope", () => {
    expect(scopedDocuments(undefined, withAttached([], ["memo"]))).toEqual(["memo"]);
    expect(scopedDocuments(["memo", "other"], ["memo"])).toEqual(["memo"]);
    expect(scopedDocuments(["other"], ["memo"])).toEqual([]);
    expect(scopedDocuments(undefined, undefined)).toBeUndefined();
  });
});
