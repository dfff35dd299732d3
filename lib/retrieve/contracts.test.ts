import { describe, expect, it } from "vitest";
import {
  DOCUMENT_URI_TEMPLATE,
  documentIdSchema,
  documentUri,
  FAQ_URI_TEMPLATE,
  faqUri,
  idField,
  MAX_ID_CHARS,
  MAX_QUERY_CHARS,
  MAX_QUESTION_CHARS,
} from "@/lib/limits";
import { fitQuery } from "@/lib/retrieve/limits";

describe("limits and contracts", () => {
  it("fit any question the chat accepts into a search query", () => {
    const question = `${"背景说明很长。".repeat(Math.ceil(MAX_QUESTION_CHARS / 7))}病假需要什么证明？`.slice(-MAX_QUESTION_CHARS);
    expect(MAX_QUESTION_CHARS).toBeGreaterThan(MAX_QUERY_CHARS);
    expect(fitQuery(question).length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
  });

  it("build resource URIs that match their templates", () => {
    expect(documentUri("人事 kb", "abc")).toBe("kb://%E4%BA%BA%E4%BA%8B%20kb/abc");
    expect(DOCUMENT_URI_TEMPLATE).toBe("kb://{kb}/{document_id}");
    expect(faqUri("default", "f1")).toBe("kb://default/faq/f1");
    expect(FAQ_URI_TEMPLATE).toBe("kb://{kb}/faq/{faq_id}");
  });

  it("take one id rule in the tools and the routes", () => {
    expect(idField("document_id").safeParse(" a1:3 ").data).toBe("a1:3");
    expect(idField("document_id").safeParse("x".repeat(MAX_ID_CHARS + 1)).error?.issues[0].message).toBe(
      `document_id must be at most ${MAX_ID_CHARS} characters`,
    );
    expect(idField("id").safeParse(undefined).error?.issues[0].message).toBe("id is required");
    expect(documentIdSchema.safeParse("a".repeat(MAX_ID_CHARS)).success).toBe(true);
    expect(documentIdSchema.safeParse("../etc").success).toBe(false);
  });
});
