import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { conversationMarkdown, exportFileName } from "./export";
import { S } from "./share-strings";
import { T } from "./strings";
import { testCitation } from "./test-citations";

const en = { ...T.en, ...S.en };
const everything = { kbs: [], documents: [], date: "7 December 2026" };

const citation = testCitation;

const messages = [
  { id: "q1", role: "user", parts: [{ type: "text", text: "How much leave?" }] },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "text", text: "25 days [2], booked in the portal [1]." },
      { type: "data-citations", data: { citations: [citation(1, "portal", "Portal [guide]"), citation(2, "leave", "Leave policy", 3)] } },
    ],
  },
] as unknown as ChatUIMessage[];

describe("conversation export", () => {
  it("writes questions as headings and answers with renumbered citations and linked references", () => {
    const md = conversationMarkdown("Leave", messages, en, "http://kb.test", everything);
    expect(md).toContain(
      "# Leave\n\n_Exported 7 December 2026_  \n_Knowledge bases: all_\n\n## How much leave?\n\n25 days [1], booked in the portal [2].",
    );
    expect(md).toContain("[1] [Leave policy · p. 3](http://kb.test/documents/leave?chunk=leave-c2)");
    expect(md).toContain("[2] [Portal \\[guide\\]](http://kb.test/documents/portal?chunk=portal-c1)");
  });

  it("names a conversation without a title by its first question, not repeated as a heading", () => {
    const md = conversationMarkdown("", messages, en, "http://kb.test", everything);
    expect(md).toMatch(/^# How much leave\?\n\n_Exported 7 December 2026_ {2}\n_Knowledge bases: all_\n\n25 days/);
  });

  it("writes no HTML: titles, questions, reference labels and answers outside code keep their tags as text", () => {
    const img = '<img src=x onerror="alert(1)">';
    const hostile = [
      { id: "q1", role: "user", parts: [{ type: "text", text: `Why ${img}?` }] },
      {
        id: "a1",
        role: "assistant",
        parts: [
          { type: "text", text: `It says ${img} [1].\n\n\`<b>kept</b>\`\n\n\`\`\`html\n<i>code</i>\n\`\`\`` },
          { type: "data-citations", data: { citations: [{ ...citation(1, "doc", `Plan ${img}`), heading: "<script>x</script>" }] } },
        ],
      },
    ] as unknown as ChatUIMessage[];
    const md = conversationMarkdown(`Title ${img}`, hostile, en, "http://kb.test", everything);
    const outsideCode = md.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    expect(outsideCode).not.toMatch(/<[a-z/!]/i);
    expect(md).toContain('# Title &lt;img src=x onerror="alert(1)"&gt;');
    expect(md).toContain("## Why &lt;img");
    expect(md).toContain("It says &lt;img");
    expect(md).toContain(
      '[Plan &lt;img src=x onerror="alert(1)"&gt; › &lt;script&gt;x&lt;/script&gt;](http://kb.test/documents/doc?chunk=doc-c1)',
    );
    // Code stays as written.
    expect(md).toContain("`<b>kept</b>`");
    expect(md).toContain("<i>code</i>");
  });

  it("does not repeat a title that is the first question, and records the scope and the attachments in its header", () => {
    const attached = [
      { ...messages[0], metadata: { attachments: [{ id: "d9", name: "contract.pdf" }] } },
      messages[1],
    ] as unknown as ChatUIMessage[];
    const md = conversationMarkdown("How much leave?", attached, en, "http://kb.test", {
      kbs: ["hr", "finance"],
      documents: ["Leave policy"],
      date: "7 December 2026",
    });
    expect(md.match(/How much leave\?/g)).toHaveLength(1);
    expect(md).toContain(
      "# How much leave?\n\n_Exported 7 December 2026_  \n_Knowledge bases: hr, finance_  \n_Sources: Leave policy_  \n_Attachments: contract.pdf_\n\n25 days",
    );
    const zh = conversationMarkdown("年假", attached, { ...T.zh, ...S.zh }, "http://kb.test", {
      kbs: [],
      documents: [],
      date: "2026年12月7日",
    });
    expect(zh).toContain("_导出于 2026年12月7日_  \n_知识库：全部_  \n_附件：contract.pdf_");
  });

  it("names the file after the title in any script", () => {
    expect(exportFileName("年假 / leave?")).toBe("年假-leave.md");
    expect(exportFileName("???")).toBe("conversation.md");
  });
});
