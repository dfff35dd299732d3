/**
 * How long a download's object URL lives. The browser fetches it after the click returns, later on a busy machine:
 * revoked too soon, the download fails without a word.
 */
const OBJECT_URL_LIFETIME_MS = 60_000;

/** Saves `blob` as a file named `name` through the browser's download. */
export function downloadBlob(name: string, blob: Blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_LIFETIME_MS);
}

/** Saves `text` as a Markdown file named `name` through the browser's download. */
export function downloadMarkdown(name: string, text: string) {
  downloadBlob(name, new Blob([text], { type: "text/markdown;charset=utf-8" }));
}
