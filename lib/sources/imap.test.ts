/**
 * The IMAP source against a real Dovecot (e2e/helpers/dovecot.ts), started once for the file, each test with an
 * account of its own: threads as documents (a reply joins its thread, a GBK body and an attachment read), an
 * unchanged re-sync that fetches nothing (CONDSTORE; Dovecot's rawlog of the sync's session), a reply that fetches
 * only its thread, a deleted message and one moved to another mailbox, a revoked password, a busy server (a proxy
 * greeting with BYE [UNAVAILABLE]), a mailbox past SOURCE_MAX_ITEMS and a mailbox the account may no longer read (an
 * ACL).
 */
import net from "node:net";
import iconv from "iconv-lite";
import { ImapFlow } from "imapflow";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { dovecotMissing, type ImapServer, startDovecot } from "@/e2e/helpers/dovecot";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { addSource, listSourceViews, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("imap-test-");
const KEY = "test-source-secret-key-0123456789";
const PASSWORD = "imap-Secret-pw";
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: KEY };
const missing = dovecotMissing();

let imap: ImapServer;
let store: Store;
beforeAll(async () => {
  if (missing) return;
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  imap = await startDovecot(await tempDir());
});
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_ITEMS"]) delete process.env[k];
  await imap?.close();
});
beforeEach(async () => {
  if (missing) return;
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  return () => store.close();
});

interface Mail {
  id: string;
  subject: string;
  from?: string;
  date: string;
  body: string;
  replyTo?: string[];
  gbk?: boolean;
  attachment?: { name: string; text: string };
}

/** An RFC 5322 message; a GBK body is sent in GBK, an attachment as base64. */
function message(m: Mail): Buffer {
  const head = [
    `From: ${m.from ?? "Dana <dana@example.com>"}`,
    "To: support@example.com",
    `Subject: =?UTF-8?B?${Buffer.from(m.subject).toString("base64")}?=`,
    `Date: ${m.date}`,
    `Message-ID: ${m.id}`,
    ...(m.replyTo ? [`In-Reply-To: ${m.replyTo.at(-1)}`, `References: ${m.replyTo.join(" ")}`] : []),
    "MIME-Version: 1.0",
  ];
  const body = m.gbk ? iconv.encode(m.body, "gbk").toString("base64") : Buffer.from(m.body).toString("base64");
  const text = [`Content-Type: text/plain; charset=${m.gbk ? "GBK" : "UTF-8"}`, "Content-Transfer-Encoding: base64", "", body];
  if (!m.attachment) return Buffer.from([...head, ...text].join("\r\n"));
  return Buffer.from(
    [
      ...head,
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      ...text,
      "--b1",
      `Content-Type: text/markdown; name="${m.attachment.name}"`,
      `Content-Disposition: attachment; filename="${m.attachment.name}"`,
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from(m.attachment.text).toString("base64"),
      "--b1--",
      "",
    ].join("\r\n"),
  );
}

/** The test's own IMAP session as `user` (named "test-writer", so its commands are told from the sync's). */
async function mailbox<T>(user: string, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
  const client = new ImapFlow({
    host: "127.0.0.1",
    port: imap.port,
    secure: false,
    auth: { user, pass: PASSWORD },
    logger: false,
    clientInfo: { name: "test-writer" },
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.logout();
  }
}
const append = (user: string, ...mails: Mail[]) =>
  mailbox(user, async (c) => {
    for (const m of mails) await c.append("INBOX", message(m));
  });

const input = (user: string, port = imap.port) =>
  sourceInputSchema.parse({ kind: "imap", url: `imap://127.0.0.1:${port}/INBOX`, username: user, password: PASSWORD, scheduleMinutes: 0 });
const add = async (user: string, port?: number) => {
  const source = await addSource(store, "default", input(user, port), { admin: false });
  return { source, run: (await runningPromise(source.id))! };
};
const sync = async (source: SourceRecord) => startSync(store, (await (await getSourceStore(store)).get(source.id))!);
const docs = () => store.listDocuments({ kb: "default" });
const titles = async () => (await docs()).map((d) => d.title).sort();
const textOf = async (title: string) => {
  const doc = (await docs()).find((d) => d.title === title);
  return doc ? store.getDocumentText(doc.id) : null;
};
/** The commands of the sync's own sessions since `from` sessions (the test's sessions left out). */
async function syncCommands(user: string, from: number): Promise<string[]> {
  const sessions = (await imap.sessions(user)).slice(from);
  return sessions.filter((s) => !s.some((c) => c.includes("test-writer"))).flat();
}

describe.skipIf(missing)(`imap source against Dovecot${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it("makes each thread a document; re-syncs fetching nothing unchanged, only a thread with a reply, and follows deletes and moves", async () => {
    const user = "support";
    await imap.setPassword(user, PASSWORD);
    await append(
      user,
      { id: "<a1@x>", subject: "Printer jam on floor 3", date: "Mon, 02 Mar 2026 09:00:00 +0100", body: "The printer on floor 3 jams." },
      {
        id: "<a2@x>",
        subject: "Re: Printer jam on floor 3",
        from: "Lee <lee@example.com>",
        date: "Mon, 02 Mar 2026 10:00:00 +0100",
        body: "Open tray 2 and remove the folded sheet.",
        replyTo: ["<a1@x>"],
      },
      {
        id: "<b1@x>",
        subject: "报销流程",
        date: "Tue, 03 Mar 2026 09:00:00 +0800",
        body: "报销需要提交发票原件和审批单。",
        gbk: true,
        attachment: { name: "policy.md", text: "# Travel policy\n\nTaxis need a receipt from the tapir desk." },
      },
      { id: "<c1@x>", subject: "VPN access", date: "Wed, 04 Mar 2026 09:00:00 +0000", body: "The VPN needs the new token app." },
    );
    const { source, run } = await add(user);
    expect(run).toMatchObject({ added: 3, error: null });
    expect(await titles()).toEqual(["Printer jam on floor 3", "VPN access", "报销流程"]);
    const printer = await textOf("Printer jam on floor 3");
    expect(printer).toContain("The printer on floor 3 jams.");
    expect(printer).toContain("Open tray 2 and remove the folded sheet.");
    expect(printer).toMatch(/Dana <dana@example.com>[\s\S]*Lee <lee@example.com>/);
    const expense = await textOf("报销流程");
    expect(expense).toContain("报销需要提交发票原件和审批单。");
    expect(expense).toContain("tapir desk");
    const links = await (await getSourceStore(store)).linksOf((await docs()).map((d) => d.id));
    expect([...links.values()].map((l) => l.url).sort()[0]).toMatch(
      new RegExp(`^imap://127\\.0\\.0\\.1:${imap.port}/INBOX;UIDVALIDITY=\\d+/;UID=1$`),
    );

    // Unchanged: the same HIGHESTMODSEQ, so no search and no fetch.
    let from = (await imap.sessions(user)).length;
    expect(await sync(source)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 3, error: null });
    const quiet = await syncCommands(user, from);
    expect(quiet.some((c) => /^SELECT|^EXAMINE/.test(c))).toBe(true);
    expect(quiet.filter((c) => /FETCH|SEARCH/.test(c))).toEqual([]);

    // A reply to the expense thread: only its headers, then that thread's messages, are fetched.
    await append(user, {
      id: "<b2@x>",
      subject: "Re: 报销流程",
      date: "Tue, 03 Mar 2026 11:00:00 +0800",
      body: "出租车费用也需要发票。",
      replyTo: ["<b1@x>"],
    });
    from = (await imap.sessions(user)).length;
    expect(await sync(source)).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 2, error: null });
    const fetches = (await syncCommands(user, from)).filter((c) => c.includes("FETCH"));
    expect(fetches.map((c) => /^UID FETCH (\S+)/.exec(c)?.[1])).toEqual(["5", "3,5"]);
    expect(await textOf("报销流程")).toContain("出租车费用也需要发票。");

    // The VPN message deleted, the printer reply moved to another mailbox.
    await mailbox(user, async (c) => {
      await c.mailboxCreate("Archive");
      await c.mailboxOpen("INBOX");
      await c.messageDelete("4", { uid: true });
      await c.messageMove("2", "Archive", { uid: true });
    });
    expect(await sync(source)).toMatchObject({ added: 0, updated: 1, removed: 1, unchanged: 1, error: null });
    expect(await titles()).toEqual(["Printer jam on floor 3", "报销流程"]);
    expect(await textOf("Printer jam on floor 3")).not.toContain("folded sheet");
  });

  it("a revoked password stops the sync with a clear error and keeps every thread; entered again it syncs", async () => {
    const user = "helpdesk";
    await imap.setPassword(user, PASSWORD);
    await append(user, {
      id: "<h1@x>",
      subject: "Badge lost",
      date: "Mon, 02 Mar 2026 09:00:00 +0000",
      body: "Badges come from reception.",
    });
    const { source, run } = await add(user);
    expect(run).toMatchObject({ added: 1, error: null });
    await imap.setPassword(user, "changed-password");
    const refused = await sync(source);
    expect(refused.error).toMatch(/^the IMAP server refused the login of helpdesk \(.*\): .*enter it again$/);
    expect(refused.error).not.toContain(PASSWORD);
    expect(await titles()).toEqual(["Badge lost"]);
    expect((await listSourceViews(store, "default"))[0].lastRun?.error).toMatch(/refused the login/);
    const patched = await updateSource(store, source, { password: "changed-password" });
    expect(await sync(patched)).toMatchObject({ unchanged: 1, error: null });
  });

  it("tries a busy server again; one still busy, or a mailbox past SOURCE_MAX_ITEMS, fails the sync removing nothing", async () => {
    const user = "busy";
    await imap.setPassword(user, PASSWORD);
    await append(
      user,
      { id: "<k1@x>", subject: "Kitchen rota", date: "Mon, 02 Mar 2026 09:00:00 +0000", body: "The kitchen rota changes weekly." },
      { id: "<k2@x>", subject: "Parking", date: "Mon, 02 Mar 2026 10:00:00 +0000", body: "Parking spots are assigned." },
    );
    let refuse = 1;
    const proxy = net.createServer((socket) => {
      if (refuse-- > 0) {
        socket.end("* BYE [UNAVAILABLE] Too many connections, try again later\r\n");
        return;
      }
      const upstream = net.connect(imap.port, "127.0.0.1");
      socket.pipe(upstream).pipe(socket);
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const { source, run } = await add(user, (proxy.address() as net.AddressInfo).port);
      expect(run).toMatchObject({ added: 2, error: null });
      refuse = 10;
      const busy = await sync(source);
      expect(busy.error).toMatch(/^the IMAP server could not be reached after 3 retries: /);
      expect(await titles()).toEqual(["Kitchen rota", "Parking"]);
      refuse = 0;
      process.env.SOURCE_MAX_ITEMS = "3";
      const over = await sync(source);
      expect(over.error).toMatch(/more than 3 items \(SOURCE_MAX_ITEMS\): nothing was removed/);
      expect(await titles()).toEqual(["Kitchen rota", "Parking"]);
      // A new message, and more messages than SOURCE_MAX_ITEMS: stopped on the search's answer, before a header or
      // thread is fetched.
      await append(user, { id: "<k3@x>", subject: "Fire drill", date: "Tue, 03 Mar 2026 09:00:00 +0000", body: "The drill is on Friday." });
      process.env.SOURCE_MAX_ITEMS = "2";
      const many = await sync(source);
      expect(many.error).toBe("the mailbox holds 3 messages, more than SOURCE_MAX_ITEMS (2): nothing was removed");
      expect(await titles()).toEqual(["Kitchen rota", "Parking"]);
    } finally {
      delete process.env.SOURCE_MAX_ITEMS;
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("a mailbox the account may no longer read stops the sync naming the missing right and keeps its threads; given back, it syncs", async () => {
    const user = "shared";
    await imap.setPassword(user, PASSWORD);
    await append(
      user,
      { id: "<p1@x>", subject: "Payroll dates", date: "Mon, 02 Mar 2026 09:00:00 +0000", body: "Payroll runs on the 25th." },
      { id: "<p2@x>", subject: "Desk moves", date: "Mon, 02 Mar 2026 10:00:00 +0000", body: "Desk moves happen on Fridays." },
    );
    const { source, run } = await add(user);
    expect(run).toMatchObject({ added: 2, error: null });
    // IMAP's rights are per mailbox (RFC 4314): the account still sees the mailbox ("l") but may no longer read it.
    await imap.setInboxRights(user, "l");
    try {
      const from = (await imap.sessions(user)).length;
      const refused = await sync(source);
      expect(refused.error).toBe(
        'the account shared may no longer read the mailbox "INBOX" (NOPERM: Permission denied): nothing was removed; give the account its read right again, or remove the source to remove its threads',
      );
      expect(refused).toMatchObject({ added: 0, removed: 0 });
      expect(await titles()).toEqual(["Desk moves", "Payroll dates"]);
      expect((await syncCommands(user, from)).filter((c) => /FETCH|SEARCH/.test(c))).toEqual([]);
      // Hidden altogether (no "l" either): Dovecot says the mailbox does not exist; the threads stay all the same.
      await imap.setInboxRights(user, "");
      expect((await sync(source)).error).toBe(
        `the IMAP server did not open the mailbox "INBOX" for shared (Mailbox doesn't exist: INBOX): nothing was removed`,
      );
      expect(await titles()).toEqual(["Desk moves", "Payroll dates"]);
    } finally {
      await imap.setInboxRights(user, null);
    }
    expect(await sync(source)).toMatchObject({ unchanged: 2, removed: 0, error: null });
  });
});
