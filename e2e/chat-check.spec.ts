/**
 * Answers you can trust (issue #27) in a real browser: the citation check of a model's answer (the fake
 * OpenAI-compatible server writes a wrong [n] and a sentence no source says), in English and Chinese and
 * after a reload (the check is part of the saved message), and the offline answer that leads with the rule
 * asked for and adds nothing from unrelated documents.
 */

import { ask, cardText, norm, openChip } from "./helpers/chat";
import { fakeRequests, withFakeModelApp } from "./helpers/fake-model";
import { search } from "./helpers/mcp";
import { expect, PORTS, test } from "./helpers/servers";

const LLM_APP = `http://127.0.0.1:${PORTS.llm}`;
const OFFLINE_APP = `http://127.0.0.1:${PORTS.offline}`;

const { mcp } = withFakeModelApp();

test.describe("English", () => {
  test.use({ locale: "en-US" });

  test("a wrong citation is moved to the chunk that says it; a sentence no source supports is marked, also after a reload", async ({
    page,
  }) => {
    await page.goto(LLM_APP);
    const answer = await ask(page, "miscite: annual leave");
    const written = (await fakeRequests()).at(-1)?.reply?.text ?? "";
    const [wrong, right] = [...written.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(wrong).not.toBe(right);

    const direct = await search(mcp(), { query: "annual leave" });
    const top = direct.results[0];
    const check = async () => {
      const chips = answer.getByTestId("citation-chip");
      // The quoted sentence now cites the chunk it comes from, and says its citation was corrected.
      await expect(chips.first()).toHaveAttribute("data-chunk-id", top.chunk_id);
      expect(norm(await openChip(page, chips.first()))).toBe(cardText(top.text));
      await expect(answer.getByTestId("citation-moved")).toHaveCount(1);
      await expect(answer.getByTestId("citation-moved")).toContainText("citation corrected");
      // The invented sentence keeps its chip and is marked.
      const mark = answer.getByTestId("unsupported-mark");
      await expect(mark).toHaveCount(1);
      await expect(mark).toHaveText("not supported by the sources");
      await expect(answer.getByTestId("answer").locator("li").nth(1)).toContainText("Interns receive 45 days of leave on Mars.");
      await expect(answer.getByTestId("answer").locator("li").nth(1).getByTestId("unsupported-mark")).toBeVisible();
      await expect(answer.getByTestId("answer").locator("li").nth(0).getByTestId("unsupported-mark")).toHaveCount(0);
    };
    await check();

    // The check is saved with the message: a reload shows the same.
    await expect(page).toHaveURL(/\?c=/);
    await page.reload();
    await expect(page.getByTestId("assistant-message")).toHaveCount(1);
    await check();
  });

  test("offline: 'How many days of annual leave do I get?' answers with the leave rule and nothing from the product FAQ", async ({
    page,
  }) => {
    await page.goto(OFFLINE_APP);
    const answer = await ask(page, "How many days of annual leave do I get?");
    const items = answer.getByTestId("answer").locator("li");
    await expect(items.first()).toContainText("20 days of paid annual leave");
    await expect(answer.getByTestId("answer")).not.toContainText(/refund|purchase|plan/i);
    // Every cited source is the handbook (the FAQ may be among the other retrieved chunks, collapsed).
    const cited = answer.getByTestId("sources").locator("ol").first().getByTestId("source-item");
    expect(await cited.count()).toBeGreaterThan(0);
    for (const source of await cited.all()) await expect(source).toContainText(/handbook/i);
    await expect(answer.getByTestId("unsupported-mark")).toHaveCount(0);
    await expect(answer.getByTestId("citation-moved")).toHaveCount(0);
  });
});

test.describe("Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the marks of the citation check are in the UI language", async ({ page }) => {
    await page.goto(LLM_APP);
    const answer = await ask(page, "miscite: 病假证明");
    await expect(answer.getByTestId("unsupported-mark")).toHaveText("来源中没有依据");
    await expect(answer.getByTestId("citation-moved")).toContainText("引用已更正");
  });
});
