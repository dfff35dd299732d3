/**
 * IMAP mailboxes (a shared support or team mailbox): each thread — messages joined by References and In-Reply-To —
 * one document, its messages in date order, each read by the e-mail parser (bodies in any charset, GBK included,
 * HTML as Markdown, attached files parsed as documents of their own format). The client is imapflow.
 *
 * Incremental: the mailbox's UIDVALIDITY and, where the server offers CONDSTORE, its HIGHESTMODSEQ are remembered
 * with its message count and next UID; all unchanged, nothing is fetched. Otherwise UID SEARCH ALL says which UIDs
 * are new and which are gone (expunged, moved elsewhere), and only the threads they touch are fetched again, whole.
 * A new UIDVALIDITY makes every UID new (a thread whose text is unchanged keeps its document). Each message's thread
 * and size are remembered (ctx.track), so a thread is rebuilt without asking the server for the headers of its older
 * messages; a message over SOURCE_MAX_BYTES is named in its thread, never downloaded.
 *
 * The server's address obeys the public-address rule (the connection goes to the address that was checked); an
 * imap:// server not listed in SOURCE_ALLOW_HOSTS must upgrade with STARTTLS, so a password never crosses the public
 * network in clear. A refused login stops the sync with its error, keeping every document; a server that is busy
 * (refuses the connection, greets with BYE) is tried again up to three times.
 */
import { isIP } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { ImapFlow } from "imapflow";
import { sourceLimits } from "@/lib/config";
import { parseDocument } from "@/lib/parse";
import type { Connector } from "./engine";
import { hostAllowed, resolveSourceHost } from "./http";
import type { SourceConfig } from "./schema";

type ImapConfig = Extract<SourceConfig, { kind: "imap" }>;

const STATE_KEY = "mailbox";
const MESSAGE = "message:";
const THREAD = "thread:";
const CONNECT_TRIES = 4;
const TIMEOUT_MS = 30_000;
/** New messages whose headers one FETCH asks for. */
const HEADER_BATCH = 500;

interface Message {
  uid: number;
  /** Thread key: the Message-ID of the thread's first message (or of the oldest one it names). */
  t: string;
  /** Its own Message-ID. */
  id: string;
  /** Bytes. */
  s: number;
}

/** The Message-IDs a header names ("<a@x> <b@y>"), in order. */
const idsIn = (value: string) => [...value.matchAll(/<[^<>\s]+>/g)].map((m) => m[0]);

/** The value of each header asked for, unfolded, from a FETCH BODY[HEADER.FIELDS (…)] answer. */
function headerValues(raw: Buffer | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (raw?.toString("latin1") ?? "").replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const m = /^([\w-]+):\s*(.*)$/.exec(line);
    if (m) out.set(m[1].toLowerCase(), m[2]);
  }
  return out;
}

/** Whether an error is the server refusing the login itself (the credential, not the network). */
const loginRefused = (err: unknown) => {
  const e = err as { authenticationFailed?: boolean; serverResponseCode?: string };
  return !!e?.authenticationFailed || e?.serverResponseCode === "AUTHENTICATIONFAILED";
};

const errorText = (err: unknown) => {
  const e = err as { responseText?: string; message?: string; code?: string };
  return (e?.responseText || e?.message || e?.code || String(err)).slice(0, 300);
};

async function connect(config: ImapConfig, password: string, maxBytes: number, signal: AbortSignal): Promise<ImapFlow> {
  const url = new URL(config.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const secure = url.protocol === "imaps:";
  const address = await resolveSourceHost(host);
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    const client = new ImapFlow({
      host: address,
      servername: isIP(host) ? undefined : host,
      port: Number(url.port) || (secure ? 993 : 143),
      secure,
      // In clear only to a host an admin listed (an intranet server); anywhere else STARTTLS or no login.
      doSTARTTLS: secure ? undefined : hostAllowed(host) ? undefined : true,
      auth: { user: config.username, pass: password },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: 2 * TIMEOUT_MS,
      // A literal past the largest message read plus its headers would be a hostile server's; so would a line (a
      // SEARCH answer of SOURCE_MAX_ITEMS numbers is a few hundred KB) or an answer past that (imapflow's defaults: 1-2 GB).
      maxLiteralSize: maxBytes + 1024 * 1024,
      maxLineLength: maxBytes + 1024 * 1024,
      maxResponseSize: 2 * (maxBytes + 1024 * 1024),
    });
    client.on("error", () => {});
    try {
      await client.connect();
      return client;
    } catch (err) {
      client.close();
      if (loginRefused(err))
        throw new Error(
          `the IMAP server refused the login of ${config.username} (${errorText(err)}): the password or app password was revoked, expired or changed; enter it again`,
        );
      if (attempt >= CONNECT_TRIES)
        throw new Error(`the IMAP server could not be reached after ${CONNECT_TRIES - 1} retries: ${errorText(err)}`);
      await sleep(500 * attempt, undefined, { signal });
    }
  }
}

/** An RFC 5092 IMAP URL of a message: a mail client opens it; the "Original" of its thread. */
function messageUrl(config: ImapConfig, mailbox: string, uidValidity: string, uid: number): string {
  const url = new URL(config.url);
  return `${url.protocol}//${url.host}/${encodeURIComponent(mailbox)};UIDVALIDITY=${uidValidity}/;UID=${uid}`;
}

/** A parsed message as a section of its thread: its sender and date as the heading, its own headings one level down. */
function section(text: string, uid: number): { subject: string | null; date: string; body: string } {
  const front = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  const field = (name: string) => {
    const m = front ? new RegExp(`^${name}: (.*)$`, "m").exec(front[1]) : null;
    if (!m) return null;
    try {
      return String(JSON.parse(m[1]));
    } catch {
      return m[1];
    }
  };
  const rest = (front ? text.slice(front[0].length) : text).replace(/^\s*# [^\n]*\n?/, "");
  const from = field("from") ?? "(unknown sender)";
  const date = field("date") ?? "";
  const heading = `## ${from}${date ? `, ${date}` : ""} (UID ${uid})`;
  return { subject: field("subject"), date, body: `${heading}\n\n${rest.replace(/^(#{1,4}) /gm, "#$1 ").trim()}` };
}

export const imapConnector: Connector = async (ctx) => {
  const config = ctx.source.config as ImapConfig;
  const password = ctx.secrets.password;
  if (!password) throw new Error("this source has no password");
  const mailbox = decodeURIComponent(new URL(config.url).pathname.replace(/^\/+/, "")) || "INBOX";
  const client = await connect(config, password, ctx.maxBytes, ctx.signal);
  const abort = () => client.close();
  ctx.signal.addEventListener("abort", abort, { once: true });
  try {
    const box = await client.mailboxOpen(mailbox, { readOnly: true }).catch((err) => {
      // The mailbox is the source's root: without it nothing can be told gone, so every thread stays (as a WebDAV
      // folder's root does). Dovecot answers a mailbox the account may not even see ("l") as one that does not exist.
      const code = (err as { serverResponseCode?: string }).serverResponseCode;
      const why = errorText(err).replace(/\s*\(\d+\.\d+ \+ \d+\.\d+(?: \+ \d+\.\d+)? secs\)\.?$/, "");
      if (code === "NOPERM" || code === "NONEXISTENT")
        throw new Error(
          `the account ${config.username} may no longer read the mailbox "${mailbox}" (${code}: ${why}): nothing was removed; give the account its read right again, or remove the source to remove its threads`,
        );
      throw new Error(`the IMAP server did not open the mailbox "${mailbox}" for ${config.username} (${why}): nothing was removed`);
    });
    const uidValidity = String(box.uidValidity);
    const state = JSON.stringify({ uidValidity, modseq: box.highestModseq?.toString() ?? null, exists: box.exists, uidNext: box.uidNext });
    const previousState = ctx.previous.get(STATE_KEY)?.version;
    const sameMailbox = !!previousState && JSON.parse(previousState).uidValidity === uidValidity;

    const known = new Map<number, Message>();
    if (sameMailbox)
      for (const [key, item] of ctx.previous)
        if (key.startsWith(MESSAGE) && item.version) known.set(Number(key.slice(MESSAGE.length)), JSON.parse(item.version));

    // CONDSTORE: the same HIGHESTMODSEQ, count and next UID mean nothing was added, changed or expunged.
    if (sameMailbox && previousState === state && box.highestModseq !== undefined) {
      await ctx.track(STATE_KEY, state);
      for (const m of known.values()) await ctx.track(`${MESSAGE}${m.uid}`, JSON.stringify(m));
      for (const key of ctx.previous.keys()) if (key.startsWith(THREAD)) ctx.keep(key);
      return { note: `${known.size} messages, unchanged since the last sync (HIGHESTMODSEQ ${box.highestModseq})` };
    }

    const uids = ((await client.search({ all: true }, { uid: true })) || []).sort((a, b) => a - b);
    // Past SOURCE_MAX_ITEMS the sync would stop anyway: it stops before a header or thread of them is held.
    const { maxItems } = sourceLimits();
    if (uids.length > maxItems)
      throw new Error(`the mailbox holds ${uids.length} messages, more than SOURCE_MAX_ITEMS (${maxItems}): nothing was removed`);
    const present = new Set(uids);
    const changed = new Set<string>();
    for (const m of known.values()) if (!present.has(m.uid)) changed.add(m.t);
    const messages = new Map([...known].filter(([uid]) => present.has(uid)));
    const added = uids.filter((u) => !known.has(u));
    if (added.length) {
      const threadOfId = new Map([...messages.values()].map((m) => [m.id, m.t]));
      // In batches, in UID order: a first sync of a large mailbox never holds every envelope at once.
      for (let i = 0; i < added.length; i += HEADER_BATCH) {
        const batch = await client.fetchAll(
          added.slice(i, i + HEADER_BATCH).join(","),
          { uid: true, size: true, envelope: true, headers: ["references", "in-reply-to", "message-id"] },
          { uid: true },
        );
        for (const f of batch.sort((a, b) => a.uid - b.uid)) {
          const headers = headerValues(f.headers);
          const id = f.envelope?.messageId || idsIn(headers.get("message-id") ?? "")[0] || `<uid-${uidValidity}-${f.uid}>`;
          const refs = [...idsIn(headers.get("references") ?? ""), ...idsIn(f.envelope?.inReplyTo ?? headers.get("in-reply-to") ?? "")];
          const t = refs.map((r) => threadOfId.get(r)).find(Boolean) ?? refs[0] ?? id;
          threadOfId.set(id, t);
          messages.set(f.uid, { uid: f.uid, t, id, s: f.size ?? 0 });
          changed.add(t);
        }
      }
    }

    const threads = new Map<string, Message[]>();
    for (const m of messages.values()) threads.set(m.t, [...(threads.get(m.t) ?? []), m]);
    for (const [t, list] of threads) {
      const key = `${THREAD}${t}`;
      if (!changed.has(t) && ctx.previous.get(key)?.documentId) {
        ctx.keep(key);
        continue;
      }
      try {
        const readable = list.filter((m) => m.s <= ctx.maxBytes);
        const sources = new Map<number, Buffer>();
        if (readable.length)
          for (const f of await client.fetchAll(readable.map((m) => m.uid).join(","), { uid: true, source: true }, { uid: true }))
            if (f.source) sources.set(f.uid, f.source);
        const sections: { subject: string | null; date: string; body: string }[] = [];
        for (const m of list) {
          const source = sources.get(m.uid);
          if (!source) {
            sections.push({
              subject: null,
              date: "",
              body: `## (UID ${m.uid})\n\n(${m.s > ctx.maxBytes ? `${m.s} bytes, larger than the limit of ${ctx.maxBytes} bytes (SOURCE_MAX_BYTES)` : "not returned by the server"})`,
            });
            continue;
          }
          try {
            sections.push(section((await parseDocument(`message-${m.uid}.eml`, source)).text, m.uid));
          } catch (err) {
            sections.push({ subject: null, date: "", body: `## (UID ${m.uid})\n\n(This message could not be read: ${errorText(err)})` });
          }
        }
        sections.sort((a, b) => (a.date && b.date ? Date.parse(a.date) - Date.parse(b.date) : 0));
        const subject =
          sections.find((s) => s.subject)?.subject?.replace(/^((re|fwd?|aw|回复|答复|转发)\s*[:：]\s*)+/i, "") || "(no subject)";
        const text = `# ${subject}\n\n${sections.map((s) => s.body).join("\n\n")}\n`;
        await ctx.ingest({
          key,
          url: messageUrl(config, mailbox, uidValidity, list[0].uid),
          name: `${
            subject
              .replace(/[\\/:*?"<>|\r\n]+/g, " ")
              .slice(0, 120)
              .trim() || "thread"
          }.md`,
          data: Buffer.from(text, "utf8"),
          version: list.map((m) => m.uid).join(","),
        });
      } catch (err) {
        ctx.signal.throwIfAborted();
        ctx.fail(key, errorText(err));
      }
    }
    await ctx.track(STATE_KEY, state);
    for (const m of messages.values()) await ctx.track(`${MESSAGE}${m.uid}`, JSON.stringify(m));
    return {
      note: `${messages.size} messages in ${threads.size} threads; ${added.length} new, ${known.size - (messages.size - added.length)} gone`,
    };
  } finally {
    ctx.signal.removeEventListener("abort", abort);
    await client.logout().catch(() => client.close());
  }
};
