import { describe, expect, it } from "vitest";
import { frontMatter } from "./front-matter";
import { parseMarkdown } from "./text";

const enc = (s: string) => new TextEncoder().encode(s);

describe("Markdown front matter", () => {
  it("is read as title, tags and author, and left out of the text", () => {
    const md = '---\ntitle: "Travel policy"\ntags: [travel, "expenses"]\nauthor: Ops\ndate: 2026-01-02\n---\n\n## Booking\n\nBook early.\n';
    const doc = parseMarkdown(enc(md));
    expect(doc).toMatchObject({ title: "Travel policy", tags: ["travel", "expenses"], author: "Ops" });
    expect(doc.text).toBe("\n## Booking\n\nBook early.\n");
  });

  it("reads block lists, falls back to the first H1 for the title, and leaves other text alone", () => {
    expect(frontMatter("---\ntags:\n  - a\n  - b c\n---\n# Hello {#top}\n").meta).toEqual({ tags: ["a", "b c"] });
    expect(parseMarkdown(enc("---\ntags:\n  - a\n---\n# Hello <em>there</em> {#top}\n")).title).toBe("Hello there");
    const plain = "# Title\n\n---\nnot: front matter\n---\n";
    expect(frontMatter(plain)).toEqual({ meta: {}, body: plain });
    expect(parseMarkdown(enc("---\nunclosed: yes\n\ntext")).text).toBe("---\nunclosed: yes\n\ntext");
  });
});
