/** Shared browser steps for the chat page. */
import { expect, type Locator, type Page } from "@playwright/test";

/** Types a question into the chat and sends it, without waiting for the answer. */
export async function send(page: Page, question: string): Promise<void> {
  const input = page.getByTestId("chat-input");
  await input.fill(question);
  await input.press("Enter");
}

/** Sends a question and waits until its answer (a new assistant message) has finished streaming. */
export async function ask(page: Page, question: string): Promise<Locator> {
  const before = await page.getByTestId("assistant-message").count();
  await send(page, question);
  await expect(page.getByTestId("assistant-message")).toHaveCount(before + 1);
  // This turn's answer, pinned by position: a later question's answer is not it.
  const answer = page.getByTestId("assistant-message").nth(before);
  // Done when the copy button shows (it appears once the answer has finished streaming).
  await expect(answer.getByTestId("copy-answer")).toBeVisible();
  return answer;
}

/** Opens a citation chip and returns the text of the chunk its card shows, then closes the card. */
export async function openChip(page: Page, chip: Locator): Promise<string> {
  await chip.click();
  const popover = page.getByTestId("citation-popover");
  await expect(popover).toBeVisible();
  const text = await popover.getByTestId("chunk-text").innerText();
  await page.keyboard.press("Escape");
  await expect(popover).toBeHidden();
  return text;
}

/** Whitespace folded, for comparing rendered text with source text. */
export const norm = (s: string) => s.replace(/\s+/g, " ").trim();

/** A chunk's text as the citation card shows it: without the heading lines it starts with (shown as its path). */
export const cardText = (s: string) =>
  norm(
    s
      .replace(/^(?:\s*#{1,6}\s[^\n]*(?:\n|$))+\s*/, "")
      .replace(/^[ \t]*#{1,6}[ \t]+/gm, "")
      .replace(/\*\*|__/g, ""),
  );
