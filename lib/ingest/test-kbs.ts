/** Test-only: a real store and registry in a temp dir, with knowledge bases and their documents. */
import { createKnowledgeBase } from "@/lib/kb";
import { openRegistry } from "@/lib/kb/registry";
import type { Store } from "@/lib/store";
import { openTempStore } from "@/lib/store/temp-store";
import { ingestDocument } from "./index";

interface TestKb {
  name: string;
  title: string;
  description: string;
  /** Markdown documents ingested into it, by file name; each is titled by its first heading. */
  documents: Record<string, string>;
}

/** A travel policy: a per diem of 80 euros. */
export const TRAVEL_POLICY = "# Travel policy\n\n## Per diem\n\nThe per diem for overnight travel is 80 euros per day.\n";

/** The "hr" knowledge base with its travel policy (a per diem of 80 euros). */
export const HR_KB: TestKb = {
  name: "hr",
  title: "Human Resources",
  description: "Leave, travel and pay policies",
  documents: { "travel.md": TRAVEL_POLICY },
};

/** A temp store (openTempStore) with a registry, the knowledge bases `kbs` and their documents. */
export async function openTestKbs(prefix: string, kbs: TestKb[]) {
  const temp = await openTempStore(prefix);
  const { store } = temp;
  const registry = await openRegistry(store, { defaultKb: "default" });
  for (const { documents, ...kb } of kbs) await createKnowledgeBase(store, registry, kb);
  for (const kb of kbs) await ingestMarkdown(store, kb.name, kb.documents);
  return { ...temp, registry };
}

/** Ingests Markdown documents, by file name, into the knowledge base `kb`. */
export async function ingestMarkdown(store: Store, kb: string, documents: Record<string, string>) {
  const enc = new TextEncoder();
  for (const [filename, text] of Object.entries(documents)) await ingestDocument(store, { filename, kb, data: enc.encode(text) });
}

const HANDBOOK_EN = `## Annual leave

Full-time employees receive 20 days of annual leave per year. Requests go to your manager two weeks ahead.

## Sick leave

Sick leave of more than three days requires a doctor's certificate from a registered physician.

## Parental leave

New parents receive 16 weeks of paid parental leave, taken within the first year after the birth or adoption.

## Remote work

Employees may work from home up to three days a week with their manager's agreement.
`;

const HANDBOOK_ZH = `## 年假

全职员工每年享有二十天带薪年假，需提前两周向主管申请。

## 病假

病假超过三天需要提供医院出具的诊断证明。

## 报销

差旅报销需在出差结束后三十天内提交发票原件，由财务部审核后发放。
`;

/**
 * An employee handbook in English (`handbook.md`: annual, sick and parental leave, remote work) and in Chinese
 * (`shouce.md`: annual and sick leave, expenses), for ingestMarkdown; `intro` puts an opening paragraph under each title.
 */
export function handbooks(intro?: { en: string; zh: string }): Record<"handbook.md" | "shouce.md", string> {
  const opening = (text: string | undefined) => (text ? `${text}\n\n` : "");
  return {
    "handbook.md": `# Employee Handbook\n\n${opening(intro?.en)}${HANDBOOK_EN}`,
    "shouce.md": `# 员工手册\n\n${opening(intro?.zh)}${HANDBOOK_ZH}`,
  };
}
