/** Shared browser steps for the chat page. */
import { expect, type Locator, type Page } from "@playwright/test";

/** Types a question into the chat, sends it, and waits until the answer has finished streaming. */
export async function ask(page: Page, question: string): Promise<Locator> {
  const input = page.getByTestId("chat-input");
  await input.fill(question);
  await input.press("Enter");
  const answer = page.getByTestId("assistant-message").last();
  // Done when the copy button shows (it appears once the answer has finished streaming).
  await expect(answer.getByTestId("copy-answer")).toBeVisible();
  return answer;
}
