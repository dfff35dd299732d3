import { describe, expect, it } from "vitest";
import { followsSource, shownFileName } from "./display";

describe("source documents on screen", () => {
  it("shows a source item's own name, without the uniqueness suffix; other documents as stored", () => {
    expect(shownFileName({ source: "bike-policy (150d4d).md", origin: "source" })).toBe("bike-policy.md");
    expect(shownFileName({ source: "index (0a1b2c)", origin: "source" })).toBe("index");
    expect(shownFileName({ source: "notes (150d4d).md", origin: "upload" })).toBe("notes (150d4d).md");
    expect(shownFileName({ source: "plan (draft).md", origin: "source" })).toBe("plan (draft).md");
    expect(followsSource({ origin: "source" })).toBe(true);
    expect(followsSource({ origin: "upload" })).toBe(false);
  });
});
