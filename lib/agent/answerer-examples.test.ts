/**
 * The offline answerer on the sample handbooks in knowledge/ (and one extra note), through the chat's real
 * path: LanceDB in a temp dir, the app's MCP endpoint over loopback HTTP, runChat and its UI message stream.
 * One test per example of issue #11, in English and Chinese.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestDocument } from "@/lib/ingest";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { askChat, serveMcp } from "@/scripts/eval-chat/harness";
import { OFFLINE_TEXT } from "./offline-model";

const repoRoot = path.resolve(import.meta.dirname, "../..");
let temp: TempStore;
let store: Store;
let mcp: Awaited<ReturnType<typeof serveMcp>>;

// A note the handbooks lack: part-time leave in Chinese, and a tiered rule written as a list.
const EXTRA = `# 兼职员工须知

## 兼职员工年假

兼职员工的年假按实际工作时间折算，例如每周工作 3 天的员工享有全职员工年假天数的 60%。

## Long-service leave

Long-service leave is granted in tiers:
- 10 to 14 years of service: 5 extra days
- 15 to 19 years of service: 10 extra days
- 20 years or more: 15 extra days
`;

beforeAll(async () => {
  temp = await openTempStore("answerer-test-");
  store = temp.store;
  for (const name of ["employee-handbook.md", "员工手册.md", "product-faq.md", "security-policy.txt"]) {
    await ingestDocument(store, { filename: name, kb: "default", data: await readFile(path.join(repoRoot, "knowledge", name)) });
  }
  await ingestDocument(store, { filename: "part-time.md", kb: "default", data: new TextEncoder().encode(EXTRA) });
  mcp = await serveMcp(store);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await temp?.close();
});

const ask = (messages: ModelMessage[] | string) => askChat(mcp.url, messages);

/** The [n] markers of a piece of answer text. */
const markers = (text: string) => [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

describe("tiered answers keep every tier", () => {
  it("年假有多少天？ quotes all three tiers across the ；", async () => {
    const { text, errors } = await ask("年假有多少天？");
    expect(errors).toEqual([]);
    expect(text).toContain("工作满 1 年不满 5 年的，每年 10 天；满 5 年不满 10 年的，每年 15 天；满 10 年及以上的，每年 20 天。");
    expect(markers(text).length).toBeGreaterThan(0);
  });

  it("a tiered list in English is quoted with all its items", async () => {
    const { text } = await ask("How many extra days of long-service leave do I get?");
    expect(text).toContain("10 to 14 years of service: 5 extra days");
    expect(text).toContain("15 to 19 years of service: 10 extra days");
    expect(text).toContain("20 years or more: 15 extra days");
  });
});

describe("follow-up questions", () => {
  it("'and for part-time staff?' is searched with the previous turn's subject", async () => {
    const first = await ask("How many days of annual leave do full-time employees get?");
    expect(first.text).toContain("20 days of paid annual leave");
    const { text, queries } = await ask([
      { role: "user", content: "How many days of annual leave do full-time employees get?" },
      { role: "assistant", content: first.text },
      { role: "user", content: "and for part-time staff?" },
    ]);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/part-time staff/);
    expect(queries[0]).toMatch(/annual leave/);
    expect(text).toMatch(/Part-time employees receive a pro-rated amount\.[^\n]*\[\d+\]/);
  });

  it("'那兼职员工呢？' is searched with the previous turn's subject", async () => {
    const first = await ask("全职员工的年假有多少天？");
    const { text, queries } = await ask([
      { role: "user", content: "全职员工的年假有多少天？" },
      { role: "assistant", content: first.text },
      { role: "user", content: "那兼职员工呢？" },
    ]);
    expect(queries[0]).toContain("兼职员工");
    expect(queries[0]).toContain("年假");
    expect(text).toMatch(/兼职员工的年假按实际工作时间折算[^\n]*\[\d+\]/);
  });

  it("'What about the VPN policy?' after an expenses question leaves the expenses behind (issue #27)", async () => {
    const previous = "How do I submit a business expense?";
    const first = await ask(previous);
    expect(first.text).toMatch(/Ledgerly/);
    const { text, queries, errors } = await ask([
      { role: "user", content: previous },
      { role: "assistant", content: first.text },
      { role: "user", content: "What about the VPN policy?" },
    ]);
    expect(errors).toEqual([]);
    expect(queries.at(-1)).toBe("What about the VPN policy?");
    expect(text).toMatch(/VPN[^\n]*\[\d+\]/);
    expect(text).not.toMatch(/expense|Ledgerly|receipt/i);
  });

  it("'那需要提前多久申请？' after a sick-leave question answers about sick leave, not personal leave (issue #27)", async () => {
    const previous = "病假需要什么证明？";
    const first = await ask(previous);
    expect(first.text).toContain("诊断证明");
    const { text, queries } = await ask([
      { role: "user", content: previous },
      { role: "assistant", content: first.text },
      { role: "user", content: "那需要提前多久申请？" },
    ]);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain("病假");
    expect(text).toMatch(/病假|所有假期/);
    expect(text).not.toContain("事假");
  });

  it("a question that stands alone is searched as asked", async () => {
    const { queries } = await ask([
      { role: "user", content: "How many days of annual leave do full-time employees get?" },
      { role: "assistant", content: "20 days." },
      { role: "user", content: "Which data is classified as Restricted?" },
    ]);
    expect(queries).toEqual(["Which data is classified as Restricted?"]);
  });
});

describe("multi-part questions", () => {
  it("'What is the sick-leave policy and who approves expenses?' is searched as two questions, each answered with its own citation", async () => {
    const { text, queries } = await ask("What is the sick-leave policy and who approves expenses?");
    expect(queries).toEqual(["What is the sick-leave policy?", "who approves expenses?"]);
    const [sick, expenses] = text.split(/\n\n(?=\*\*who approves)/);
    expect(sick).toMatch(/^\*\*What is the sick-leave policy\?\*\*/);
    expect(sick).toMatch(/doctor's note|sick leave/i);
    expect(expenses).toMatch(/approved by your manager/);
    expect(markers(sick).length).toBeGreaterThan(0);
    expect(markers(expenses).length).toBeGreaterThan(0);
  });

  it("'病假有几天？报销由谁审批？' is searched as two questions, each answered with its own citation", async () => {
    const { text, queries } = await ask("病假有几天？报销由谁审批？");
    expect(queries).toEqual(["病假有几天？", "报销由谁审批？"]);
    const [sick, expenses] = text.split(/\n\n(?=\*\*报销)/);
    expect(sick).toContain("员工每年享有 12 天带薪病假。");
    expect(expenses).toContain("直属主管审批");
    expect(markers(sick).length).toBeGreaterThan(0);
    expect(markers(expenses).length).toBeGreaterThan(0);
  });
});

describe("the answer first, nothing padded (issue #27)", () => {
  it("'How many days of annual leave do I get?' answers with the leave rule and nothing from the product FAQ", async () => {
    const { text, events } = await ask("How many days of annual leave do I get?");
    const first = text.split("\n").find((l) => /\[\d+\]/.test(l))!;
    expect(first).toMatch(/20 days of paid annual leave/);
    expect(text).not.toMatch(/refund|plan|purchase/i);
    const last = events.filter((e) => e.type === "data-citations").at(-1);
    const { citations } = last!.data as { citations: { n: number; document: { source: string } }[] };
    const sources = markers(text).map((n) => citations.find((c) => c.n === n)!.document.source);
    expect(new Set(sources)).toEqual(new Set(["employee-handbook.md"]));
  });

  it("'病假需要什么证明？' quotes the sick-leave rule and nothing about maternity leave", async () => {
    const { text } = await ask("病假需要什么证明？");
    expect(text).toContain("诊断证明");
    expect(text).not.toMatch(/产假|婚假/);
  });
});

describe("honest refusals", () => {
  it("refuses what the documents do not cover, in the question's language, citing nothing", async () => {
    expect((await ask("What is the boiling point of mercury?")).text).toBe(OFFLINE_TEXT.en.notFound);
    expect((await ask("公司的火星基地在哪里？")).text).toBe(OFFLINE_TEXT.zh.notFound);
  });
});
