import { AppError, type ParsedDocument } from "@/lib/types";
import { EXTENSION_FORMATS, extensionOf } from "./formats";
import { type ParseOptions, resolveLimits } from "./limits";
import { htmlToMarkdown } from "./markdown";
import { NeedsOcr } from "./ocr";
import { checkTextSize } from "./zip";

/** Parses an attachment as a document of its own format (lib/parse/index.ts parseDocumentHere, handed in). */
export type NestedParser = (filename: string, data: Uint8Array, opts?: ParseOptions) => Promise<ParsedDocument>;

const yamlValue = (v: string) => JSON.stringify(v.replace(/\s+/g, " ").trim());

type Addresses = { value: { name?: string; address?: string }[] };

/** "Name <address>, …" without the quotes mailparser's own text puts around names. */
const addresses = (list: Addresses | Addresses[] | undefined) =>
  [list ?? []]
    .flat()
    .flatMap((a) => a.value)
    .map((a) => (a.name && a.address ? `${a.name} <${a.address}>` : (a.address ?? a.name ?? "")))
    .filter(Boolean)
    .join(", ");

/** Zone names RFC 5322 still allows (obsolete), as offsets in minutes. */
const NAMED_ZONES: Record<string, number> = {
  UT: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

/**
 * The date as the sender wrote it: their wall-clock time with their offset ("2026-03-03T09:30:00+01:00"), taken
 * from the Date header's zone; the UTC instant when the header names none.
 */
function senderDate(date: Date, header: string | undefined): string {
  const zone = /(?:\s|\d)([+-])(\d{2})(\d{2})\s*(?:\([^)]*\))?\s*$/.exec(header ?? "");
  const named = /\s([A-Z]{1,3})\s*$/i.exec(header ?? "")?.[1]?.toUpperCase();
  const offset = zone ? (zone[1] === "-" ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) : named ? NAMED_ZONES[named] : undefined;
  if (offset === undefined) return date.toISOString();
  const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${local}${offset < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const words = (s: string) => s.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
const TABLE_ROW = /^\|.*\|$/m;

/**
 * The body that holds more: the HTML one (as Markdown) when it has more words than the plain one, or as many and a
 * table the plain one flattens (a plain body made from HTML glues table cells together: "DayAgendaDay 1").
 */
function richerBody(plain: string, html: string): string {
  if (!html) return plain;
  const [p, h] = [words(plain), words(html)];
  return h > p || (h === p && TABLE_ROW.test(html) && !TABLE_ROW.test(plain)) ? html : plain;
}

/**
 * An e-mail (RFC 822 / MIME, read by mailparser) → front matter with its subject, sender, recipients and date,
 * the subject as title, the richer of its bodies (HTML as Markdown, tables as tables), then each attached file of a
 * format the app reads, parsed as that document, under `# Attachment: name`. Inline parts (logos, signatures)
 * are not attachments; a nested e-mail is not opened.
 */
export async function parseEml(
  data: Uint8Array,
  filename: string,
  opts: ParseOptions | undefined,
  nested: NestedParser,
): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  const { simpleParser } = await import("mailparser");
  let mail: Awaited<ReturnType<typeof simpleParser>>;
  try {
    mail = await simpleParser(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { skipImageLinks: true, skipTextToHtml: true });
  } catch {
    throw new AppError("parse_failed", `"${filename}" could not be read as an e-mail.`);
  }
  if (!mail.headers.size || (!mail.subject && !mail.from)) {
    throw new AppError("parse_failed", `"${filename}" is not an e-mail: it has no Subject or From header.`);
  }
  const subject = mail.subject?.trim() || undefined;
  const from = addresses(mail.from);
  const to = addresses(mail.to);
  const front = ["---"];
  if (subject) front.push(`subject: ${yamlValue(subject)}`);
  if (from) front.push(`from: ${yamlValue(from)}`);
  if (to) front.push(`to: ${yamlValue(to)}`);
  const dateHeader = mail.headerLines.find((h) => h.key === "date")?.line.replace(/^date:\s*/i, "");
  if (mail.date) front.push(`date: ${senderDate(mail.date, dateHeader)}`);
  front.push("---");

  const body = richerBody(mail.text?.trim() ?? "", typeof mail.html === "string" ? htmlToMarkdown(mail.html) : "").replace(/\r\n?/g, "\n");
  const parts = [front.join("\n"), `# ${subject ?? "(no subject)"}`];
  if (body) parts.push(body);
  const attached = mail.attachments.filter((a) => a.filename?.split(/[\\/]/).pop() && !a.related && a.contentDisposition !== "inline");
  if (attached.length > limits.maxEmailAttachments) {
    throw new AppError(
      "too_large",
      `"${filename}" has ${attached.length} attachments: too many (an e-mail is read with at most ${limits.maxEmailAttachments}).`,
    );
  }
  for (const a of attached) {
    const name = a.filename?.split(/[\\/]/).pop();
    if (!name) continue;
    const ext = extensionOf(name);
    if (!(ext in EXTENSION_FORMATS) || ext === ".eml") continue;
    let text: string;
    try {
      text = (await nested(name, new Uint8Array(a.content), opts)).text;
    } catch (err) {
      if (err instanceof NeedsOcr || (err instanceof AppError && (err.code === "cancelled" || err.code === "too_large"))) throw err;
      text = `(This attachment could not be read: ${(err as Error).message})`;
    }
    // The attachment's own headings go one level down, under its name.
    parts.push(`# Attachment: ${name}`, text.replace(/^(#{1,5}) /gm, "#$1 "));
    checkTextSize(parts.join("\n\n"), filename, limits);
  }
  return {
    text: parts.join("\n\n"),
    title: subject,
    author: mail.from?.value[0]?.name || mail.from?.value[0]?.address,
    mimeType: "message/rfc822",
  };
}
