/** The one scope rule: what the Scope picker lists, what example and overview questions ask about, what a search reaches. */
import { describe, expect, it } from "vitest";
import {
  attachmentOwnerOf,
  documentsInScope,
  isAttachmentKb,
  MAX_SCOPE_DOCUMENTS,
  picksOutsideKbs,
  scopedDocuments,
  scopeQuery,
  searchReaches,
  withAttached,
} from "./scope";
import { scopeQuerySchema } from "./scope-query";

const docs = [
  { id: "handbook", kb: "hr" },
  { id: "leave", kb: "hr" },
  { id: "budget", kb: "finance" },
];

describe("scope rule", () => {
  it("lists the documents of the chosen knowledge bases, and of those only the picked ones", () => {
    expect(documentsInScope(docs).map((d) => d.id)).toEqual(["handbook", "leave", "budget"]);
    expect(documentsInScope(docs, { kbs: ["finance"] }).map((d) => d.id)).toEqual(["budget"]);
    expect(documentsInScope(docs, { documents: ["leave"] }).map((d) => d.id)).toEqual(["leave"]);
    // A pick outside "Search in" is never in scope: it would be searched nowhere.
    expect(documentsInScope(docs, { kbs: ["finance"], documents: ["leave"] })).toEqual([]);
    expect(picksOutsideKbs(["leave", "budget", "gone"], docs, ["finance"])).toEqual(["leave"]);
    expect(picksOutsideKbs(["leave"], docs, [])).toEqual([]);
  });

  it("travels in a query string and back", () => {
    const scope = { kbs: ["hr", "a,b"], documents: ["x y", "z"] };
    const query = new URLSearchParams(scopeQuery(scope));
    expect(scopeQuerySchema.parse(Object.fromEntries(query))).toEqual(scope);
    expect(scopeQuerySchema.parse({})).toEqual({ kbs: [], documents: [] });
  });

  it("reaches a question's attachment only when the search names its document", () => {
    const kb = "~user-1~0b7c";
    expect(isAttachmentKb(kb)).toBe(true);
    expect(isAttachmentKb("hr")).toBe(false);
    expect(attachmentOwnerOf(kb)).toBe("user-1");
    expect(attachmentOwnerOf("~~0b7c")).toBeNull();
    const attached = { kb, documentId: "att" };
    expect(searchReaches(attached, {})).toBe(false);
    expect(searchReaches(attached, { kbs: ["hr"] })).toBe(false);
    expect(searchReaches(attached, { documents: ["att"] })).toBe(true);
    expect(searchReaches(attached, { kbs: ["hr"], documents: ["att"] })).toBe(true);
    expect(searchReaches(attached, { documents: ["other"] })).toBe(false);
    expect(searchReaches({ kb: "hr", documentId: "leave" }, { kbs: ["hr"] })).toBe(true);
    expect(searchReaches({ kb: "hr", documentId: "leave" }, { kbs: ["finance"], documents: ["leave"] })).toBe(false);
  });
});

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
