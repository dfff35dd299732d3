/**
 * What a notebook user reaches for (issue #53, part A), in English and Chinese: follow-up suggestions after
 * an answer (offline from the retrieved passages, from the model when there is one), the model picker (the
 * fake LLM lists two models on /v1/models) with the model recorded on each answer, and custom instructions
 * per knowledge base, edited on /kbs and found in the system prompt the fake LLM received; an answer saved as a
 * note (listed, shown, renamed, exported, deleted) and a study guide written by the model from the conversation's
 * selected sources. axe on each state.
 */
import { readFile } from "node:fs/promises";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import { fakeRequests, withFakeModelApp } from "./helpers/fake-model";
import { expect, PORTS, test } from "./helpers/servers";

const LLM = `http://127.0.0.1:${PORTS.llm}`;
const CJK = /\p{Script=Han}/u;

test.describe.configure({ timeout: 240_000 });
withFakeModelApp();

const CASES = [
  { locale: "en-US", lang: "en", question: "How many days of annual leave do full-time employees get?" },
  { locale: "zh-CN", lang: "zh", question: "年假有多少天？" },
] as const;

for (const c of CASES) {
  test.describe(c.locale, () => {
    test.use({ locale: c.locale });

    test(`offline follow-up suggestions in ${c.lang}: each one asked on click, answered from the library`, async ({ page }) => {
      await page.goto("/");
      const answer = await ask(page, c.question);
      await expect(answer.getByTestId("citation-chip").first()).toBeVisible();
      const suggestions = page.getByTestId("follow-up-suggestion");
      await expect(suggestions.first()).toBeVisible();
      const texts = (await suggestions.allInnerTexts()).map((s) => s.replace(/^↳\s*/, "").trim());
      expect(texts.length).toBeGreaterThanOrEqual(2);
      expect(texts.length).toBeLessThanOrEqual(3);
      for (const s of texts) {
        // In the conversation's language.
        expect(CJK.test(s), s).toBe(c.lang === "zh");
        expect(s).not.toBe(c.question);
      }
      await audit(page, `follow-ups ${c.lang}`);

      await suggestions.first().click();
      await expect(page.getByTestId("assistant-message")).toHaveCount(2);
      await expect(page.getByTestId("user-message").nth(1)).toContainText(texts[0]);
      const next = page.getByTestId("assistant-message").nth(1);
      await expect(next.getByTestId("copy-answer")).toBeVisible();
      // Answered from the library: it cites a passage or answers with an FAQ entry (a refusal does neither).
      await expect(next.getByTestId("citation-chip").or(next.getByTestId("faq-answer")).first()).toBeVisible();
      await expect(next).not.toContainText(c.lang === "zh" ? "知识库中没有找到" : "does not contain an answer");
      // The new answer brings its own suggestions.
      await expect(page.getByTestId("follow-up-suggestion").first()).toBeVisible();
      await expect(page.getByTestId("model-picker")).toHaveCount(0);
    });

    test(`with a model (${c.lang}): the model writes the suggestions, the picker chooses the model, the answer records it`, async ({
      page,
    }) => {
      await page.goto(LLM);
      const picker = page.getByTestId("model-picker");
      await expect(picker).toBeVisible();
      await expect(picker.locator("option")).toHaveText(["fake-model", "fake-model-large"]);
      await expect(picker).toHaveValue("fake-model");
      await picker.selectOption("fake-model-large");
      // The header's badge names the model that will answer, not the first one configured.
      await expect(page.getByTestId("model-badge")).toHaveText(/fake-model-large/);
      await audit(page, `model picker ${c.lang}`);

      const answer = await ask(page, c.question);
      const written = answer.getByTestId("answer-model");
      await expect(written).toHaveText(c.lang === "zh" ? "由 fake-model-large 回答" : "Written by fake-model-large");
      const reqs = await fakeRequests({ followUps: true });
      expect((await fakeRequests()).length).toBeLessThan(reqs.length);
      for (const r of reqs) expect(r.model).toBe("fake-model-large");

      // The model was asked for the suggestions, in the real wire format, and they are shown.
      expect(reqs.some((r) => r.system.startsWith("You suggest follow-up questions"))).toBe(true);
      const suggestions = page.getByTestId("follow-up-suggestion");
      await expect(suggestions.first()).toContainText(c.lang === "zh" ? "模型建议：" : "Model asks:");
      await audit(page, `model answer ${c.lang}`);

      // Stored with the message: reopening the conversation shows who wrote it and keeps its model.
      await expect(page).toHaveURL(/[?&]c=/);
      await page.reload();
      await expect(page.getByTestId("answer-model")).toHaveText(
        c.lang === "zh" ? "由 fake-model-large 回答" : "Written by fake-model-large",
      );
      await expect(page.getByTestId("model-picker")).toHaveValue("fake-model-large");
      await fetch(`http://127.0.0.1:${PORTS.fakeLlm}/reset`, { method: "POST" });
      await page.getByTestId("follow-up-suggestion").first().click();
      // The clicked suggestion goes away while it is answered: the question box keeps the focus.
      await expect(page.getByTestId("chat-input")).toBeFocused();
      await expect(page.getByTestId("assistant-message")).toHaveCount(2);
      await expect(page.getByTestId("assistant-message").nth(1).getByTestId("copy-answer")).toBeVisible();
      expect((await fakeRequests({ followUps: true })).every((r) => r.model === "fake-model-large")).toBe(true);

      // A new chat starts with the default model.
      await page.getByTestId("new-chat").click();
      await expect(page.getByTestId("model-picker")).toHaveValue("fake-model");
      await expect(page.getByTestId("model-badge")).toHaveText(/fake-model$/);
    });
  });
}

const NOTES = {
  en: { renamed: "Leave for full-time staff", guide: "Study guide", unsupported: "not supported by the sources", doc: "Employee Handbook" },
  zh: { renamed: "全职员工的年假", guide: "学习指南", unsupported: "来源中没有依据", doc: "员工手册" },
} as const;

for (const c of CASES) {
  test(`notes (${c.lang}): an answer kept as a note is listed, shown with its chips, renamed, exported and deleted; a study guide is the model's, made from the conversation's selected sources, checked`, async ({
    browser,
  }) => {
    const n = NOTES[c.lang];
    // English light at 1280 px, Chinese dark at 390 px.
    const context = await browser.newContext({
      locale: c.locale,
      colorScheme: c.lang === "zh" ? "dark" : "light",
      viewport: c.lang === "zh" ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    try {
      // Offline: no study guide, and the reason.
      await page.goto(`http://127.0.0.1:${PORTS.offline}/notes`);
      await expect(page.getByTestId("notes-needs-model")).toContainText("OPENAI_API_KEY");
      await expect(page.getByTestId("make-study-guide")).toHaveCount(0);

      // With a model: the conversation's selected source is one document; its answer kept as a note.
      await page.goto(LLM);
      await page.getByTestId("document-scope").click();
      await page
        .getByTestId("document-scope-item")
        .and(page.getByRole("checkbox", { name: n.doc }))
        .check();
      await page.keyboard.press("Escape");
      await expect(page.getByTestId("document-scope-label")).toHaveText(n.doc);
      const answer = await ask(page, c.question);
      await answer.getByTestId("save-note").click();
      await expect(answer.getByTestId("note-saved")).toBeVisible();
      await answer.getByTestId("open-notes").click();
      await expect(page).toHaveURL(/\/notes\?kb=[^&]+&documents=/);
      // The notes page's Scope picker starts from the conversation's selected sources.
      await expect(page.getByTestId("document-scope-label")).toHaveText(n.doc);
      await page.getByTestId("note-item").filter({ hasText: c.question }).first().click();
      const view = page.getByTestId("note-view");
      await expect(view.getByTestId("citation-chip").first()).toBeVisible();
      await audit(page, `notes ${c.lang}`);

      await view.getByTestId("note-rename").click();
      await view.getByTestId("note-title-input").fill(n.renamed);
      await view.getByTestId("note-rename-save").click();
      await expect(view.getByTestId("note-title")).toHaveText(n.renamed);
      await expect(page.getByTestId("note-item").filter({ hasText: n.renamed })).toHaveCount(1);

      const download = page.waitForEvent("download");
      await view.getByTestId("note-export").click();
      const md = await readFile((await (await download).path())!, "utf8");
      expect(md.startsWith(`# ${n.renamed}\n`), md).toBe(true);
      expect(md).toMatch(/\[1\]/);
      expect(md).toContain("/documents/");

      await view.getByTestId("note-delete").click();
      await view.getByTestId("note-delete-confirm").click();
      await expect(page.getByTestId("note-item").filter({ hasText: n.renamed })).toHaveCount(0);

      // A study guide from the selected source alone (not the whole knowledge base), cited, its invented sentence marked.
      await fetch(`http://127.0.0.1:${PORTS.fakeLlm}/reset`, { method: "POST" });
      await page.getByTestId("make-study-guide").click();
      const guide = page.getByTestId("note-view");
      await expect(guide.getByTestId("note-kind")).toHaveText(n.guide, { timeout: 60_000 });
      await expect(guide.getByTestId("note-title")).toHaveText(`${n.guide} · ${n.doc}`);
      await expect(guide.getByTestId("citation-chip").first()).toBeVisible();
      await expect(guide.getByTestId("unsupported-mark").first()).toHaveText(n.unsupported);
      await expect(guide).toContainText("fake-model");
      await audit(page, `study guide ${c.lang}`);
      const written = (await fakeRequests()).filter((r) => r.system.startsWith("You write from the numbered passages"));
      expect(written).toHaveLength(1);
      // Each passage the model was given ("[n] Title › Heading") is of the selected document.
      const titles = [...written[0].question.matchAll(/^\[\d+\] (.+?)(?: › .*)?$/gm)].map((m) => m[1]);
      expect(titles.length).toBeGreaterThan(0);
      expect(new Set(titles)).toEqual(new Set([n.doc]));
      await guide.getByTestId("note-delete").click();
      await guide.getByTestId("note-delete-confirm").click();
      await expect(page.getByTestId("note-view")).toHaveCount(0);
    } finally {
      await context.close();
    }
  });
}

test("a model the app does not offer is refused before anything reaches the endpoint", async () => {
  await fetch(`http://127.0.0.1:${PORTS.fakeLlm}/reset`, { method: "POST" });
  const res = await fetch(`${LLM}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-secret", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hello?" }] }] }),
  });
  expect(res.status).toBe(400);
  expect((await res.json()).error.message).toContain("gpt-secret");
  expect(await fakeRequests()).toEqual([]);
});

test.describe("custom instructions", () => {
  let kb = "";
  test.beforeAll(async () => {
    const { kbs } = (await (await fetch(`${LLM}/api/kbs`)).json()) as { kbs: { name: string; isDefault: boolean }[] };
    kb = kbs.find((k) => k.isDefault)!.name;
  });
  test.afterAll(async () => {
    await fetch(`${LLM}/api/kbs/${kb}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ instructions: "" }),
    });
  });

  for (const c of CASES) {
    test(`edited on /kbs (${c.lang}), stored with the knowledge base and sent in the model's system prompt`, async ({ browser }) => {
      const context = await browser.newContext({ locale: c.locale });
      const page = await context.newPage();
      const rule = c.lang === "zh" ? "请用正式的中文回答，不回答薪资问题。" : "Answer formally. Refuse questions about salaries.";
      await page.goto(`${LLM}/kbs`);
      const card = page.locator(`[data-testid="kb-card"][data-kb="${kb}"]`);
      await card.getByTestId("kb-edit").click();
      await expect(card.getByText(c.lang === "zh" ? "自定义指令" : "Custom instructions")).toBeVisible();
      await card.getByTestId("kb-edit-instructions").fill(rule);
      await audit(page, `kb instructions ${c.lang}`);
      await card.getByTestId("kb-save").click();
      await expect(card.getByTestId("kb-edit-instructions")).toHaveCount(0);

      const stored = (await (await fetch(`${LLM}/api/kbs/${kb}`)).json()) as { kb: { instructions: string } };
      expect(stored.kb.instructions).toBe(rule);

      await page.goto(LLM);
      await ask(page, c.question);
      const reqs = await fakeRequests();
      const chat = reqs.filter((r) => r.tools.length > 0);
      expect(chat.length).toBeGreaterThan(0);
      for (const r of chat) {
        expect(r.system).toContain("You are the assistant of a knowledge base");
        expect(r.system).toContain(rule);
      }
      await context.close();
    });
  }
});
