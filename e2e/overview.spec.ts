/**
 * Overviews (issue #53) in English and Chinese: the empty chat shows the knowledge bases' overview and questions
 * they answer in the UI language (clicking one asks it, and it is answered from the library); the document page
 * shows the document's overview, labelled as extracted offline, or written by the model (the fake LLM) when
 * there is one; a document's overview question opens a chat that asks it. axe on each state.
 */
import { audit } from "./helpers/axe";
import { fakeRequests, withFakeModelApp } from "./helpers/fake-model";
import { expect, PORTS, test } from "./helpers/servers";

const LLM = `http://127.0.0.1:${PORTS.llm}`;
const CJK = /\p{Script=Han}/u;

test.describe.configure({ timeout: 240_000 });
withFakeModelApp();

const CASES = [
  { locale: "en-US", lang: "en", label: "Extracted overview (offline)", doc: "employee-handbook.md", model: "Model asks:" },
  { locale: "zh-CN", lang: "zh", label: "提取的概览（离线）", doc: "员工手册.md", model: "模型提问：" },
] as const;

for (const c of CASES) {
  test.describe(c.locale, () => {
    test.use({ locale: c.locale });

    test(`the empty chat shows the extracted overview in ${c.lang}, and an overview question is asked on click`, async ({ page }) => {
      await page.goto("/");
      const overview = page.getByTestId("chat-overview");
      await expect(overview).toBeVisible({ timeout: 60_000 });
      await expect(overview.getByTestId("overview-kind")).toHaveText(c.label);
      await expect(overview.getByTestId("overview-covers")).not.toBeEmpty();
      const questions = page.getByTestId("example-question");
      await expect(questions.first()).toBeVisible();
      const texts = await questions.allInnerTexts();
      expect(texts.length).toBeGreaterThanOrEqual(2);
      // In the UI's words (a document's own terms may be in its language): never an English template on the Chinese screen.
      for (const q of texts) {
        if (c.lang === "zh") expect(CJK.test(q) && !/^(Tell me about|What does)/.test(q), q).toBe(true);
        else expect(/[A-Za-z]/.test(q) && !/^介绍一下/.test(q), q).toBe(true);
      }
      await audit(page, `empty chat ${c.lang}`);

      await questions.first().click();
      await expect(page.getByTestId("user-message").first()).toContainText(texts[0]);
      const answer = page.getByTestId("assistant-message").first();
      await expect(answer.getByTestId("copy-answer")).toBeVisible({ timeout: 60_000 });
      // Answerable: the library answers it with a citation.
      await expect(answer.getByTestId("citation-chip").first()).toBeVisible();
    });

    test(`the document page shows the document's extracted overview in ${c.lang}`, async ({ page, request }) => {
      const { documents } = (await (await request.get("/api/documents")).json()) as { documents: { id: string; source: string }[] };
      const doc = documents.find((d) => d.source === c.doc)!;
      expect(doc).toBeTruthy();
      await page.goto(`/documents/${doc.id}`);
      const overview = page.getByTestId("document-overview");
      await expect(overview).toBeVisible({ timeout: 60_000 });
      await expect(overview.getByTestId("overview-kind")).toHaveText(c.label);
      await expect(overview.getByTestId("overview-covers")).not.toBeEmpty();
      expect(await overview.getByTestId("overview-sections").locator("li").count()).toBeGreaterThanOrEqual(2);
      const questions = await overview.getByTestId("overview-question").allInnerTexts();
      expect(questions.length).toBeGreaterThanOrEqual(2);
      expect(questions.length).toBeLessThanOrEqual(5);
      for (const q of questions) expect(CJK.test(q), q).toBe(c.lang === "zh");
      await audit(page, `document overview ${c.lang}`);

      // A question is a link: it opens a chat that asks it, answered from the library.
      await overview.getByTestId("overview-question").first().click();
      await expect(page.getByTestId("user-message").first()).toContainText(questions[0]);
      await expect(page).not.toHaveURL(/[?&]ask=/);
      const answer = page.getByTestId("assistant-message").first();
      await expect(answer.getByTestId("copy-answer")).toBeVisible({ timeout: 60_000 });
      await expect(answer.getByTestId("citation-chip").or(answer.getByTestId("faq-answer")).first()).toBeVisible();
    });

    test(`with a model, the overview is the model's, in ${c.lang}`, async ({ page }) => {
      await page.goto(`${LLM}/`);
      const overview = page.getByTestId("chat-overview");
      await expect(overview.getByTestId("overview-kind")).toHaveAttribute("data-kind", "model", { timeout: 60_000 });
      await expect(page.getByTestId("example-question").first()).toContainText(c.model);
      await audit(page, `model overview ${c.lang}`);
      // Cached: a second visit asks the model nothing.
      await fetch(`http://127.0.0.1:${PORTS.fakeLlm}/reset`, { method: "POST" });
      await page.reload();
      await expect(page.getByTestId("example-question").first()).toContainText(c.model);
      expect(await fakeRequests({ overviews: true })).toEqual([]);
    });
  });
}
