/**
 * An image in a document's or an answer's Markdown is never fetched (a remote image is a tracking pixel that
 * tells its owner who read the document, and when): it shows as a link naming the image's host, which a
 * reader may open on purpose, or as its description where it names no web address (react-markdown already
 * drops data: and other addresses).
 */

/** The host a web (http, https) address names ("" for any other: relative, unparsable, javascript:, data:…). */
export function webHost(src: string): string {
  try {
    const url = new URL(src);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : "";
  } catch {
    return "";
  }
}

export function ImageLink({ src, alt }: { src?: string | Blob; alt?: string }) {
  const host = typeof src === "string" ? webHost(src) : "";
  const label = `🖼 ${alt || "image"}${host ? ` (${host})` : ""}`;
  if (!host || typeof src !== "string") return <span data-testid="image-link">{label}</span>;
  return (
    <a
      href={src}
      data-testid="image-link"
      title={src}
      target="_blank"
      rel="noreferrer noopener"
      referrerPolicy="no-referrer"
      className="text-blue-700 underline dark:text-blue-300"
    >
      {label}
    </a>
  );
}
