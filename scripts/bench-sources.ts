/**
 * Sources against the real servers: `npm run bench -- --sources [--items 1000]`. For each of Apache mod_dav
 * (WebDAV), Dovecot (IMAP) and MediaWiki — started from their Debian packages as the tests start them
 * (e2e/helpers/) — `items` items (files in ten folders, one-message threads, pages) are synced through the real sync
 * engine into a real store in a temporary folder: the first sync (items/s) and an unchanged re-sync. Each line
 * gives wall seconds and CPU-seconds of this process (sync engine, parsing, indexing) and of the server. A server
 * that is not installed is a line saying so. No assertions.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ImapFlow } from "imapflow";
import { apacheMissing, startApacheDav } from "@/e2e/helpers/apache-dav";
import { dovecotMissing, startDovecot } from "@/e2e/helpers/dovecot";
import { mediawikiMissing, startMediaWiki } from "@/e2e/helpers/mediawiki";
import { getAuditLog } from "@/lib/audit/log";
import { getEmbedder } from "@/lib/embed";
import { runningPromise } from "@/lib/sources/engine";
import { sourceInputSchema } from "@/lib/sources/schema";
import { addSource, startSync } from "@/lib/sources/service";
import { getSourceStore } from "@/lib/sources/store";
import { openStore } from "@/lib/store";
import { processCpuMs } from "@/lib/worker/cpu";

const USER = "bench";
const PASSWORD = "bench-Password-1";
/** The server processes a helper starts: children of this process. */
const SERVERS = new Set(["apache2", "dovecot", "php"]);

/** A few sentences of item `i`, different words for each item so no two are the same document. */
const body = (i: number) =>
  `Item ${i} of the bench. The ${["okapi", "tapir", "quokka", "narwhal", "pangolin"][i % 5]} team reviews request ${i * 7919} on ` +
  `${["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"][i % 5]}. ` +
  `Budget line ${i} covers ${(i * 37) % 1000} units; the owner of record ${i} answers within ${1 + (i % 9)} days.`;

/** CPU milliseconds of this process's server children (and what they waited for). */
async function serverCpuMs(): Promise<number> {
  let sum = 0;
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const comm = /\(([^)]*)\)/.exec(stat)?.[1] ?? "";
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === process.pid && SERVERS.has(comm)) sum += (await processCpuMs(Number(pid))) ?? 0;
  }
  return sum;
}

async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; seconds: number; ownCpu: number; serverCpu: number }> {
  const [own0, server0, t0] = [(await processCpuMs(process.pid)) ?? 0, await serverCpuMs(), performance.now()];
  const result = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const ownCpu = (((await processCpuMs(process.pid)) ?? 0) - own0) / 1000;
  const serverCpu = ((await serverCpuMs()) - server0) / 1000;
  return { result, seconds, ownCpu, serverCpu };
}

/** Adds the source (its first sync), then syncs it again unchanged; prints both. */
async function syncTwice(label: string, input: Record<string, unknown>, items: number) {
  const dir = await mkdtempIn("kb-bench-sources-store-");
  const store = await openStore({ uri: dir, embedder: getEmbedder() });
  try {
    const first = await measure(async () => {
      const source = await addSource(store, "default", sourceInputSchema.parse({ ...input, scheduleMinutes: 0 }), { admin: false });
      return { source, run: (await runningPromise(source.id))! };
    });
    const { source, run } = first.result;
    if (run.error || run.added !== items)
      throw new Error(`${label}: the first sync added ${run.added} of ${items} (${run.error ?? run.note})`);
    const again = await measure(async () => startSync(store, (await (await getSourceStore(store)).get(source.id))!));
    if (again.result.error || again.result.unchanged !== items)
      throw new Error(`${label}: the re-sync kept ${again.result.unchanged} of ${items} unchanged (${again.result.error ?? ""})`);
    console.log(
      `${label.padEnd(18)} first sync ${items} items ${first.seconds.toFixed(1)} s  ${(items / first.seconds).toFixed(1)} items/s  ` +
        `CPU ${first.ownCpu.toFixed(1)} s here + ${first.serverCpu.toFixed(1)} s server  |  ` +
        `unchanged re-sync ${again.seconds.toFixed(2)} s  CPU ${again.ownCpu.toFixed(2)} s here + ${again.serverCpu.toFixed(2)} s server`,
    );
  } finally {
    // The runs' audit rows are written within half a second: before the store closes.
    await (await getAuditLog(store)).flush();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const temps: string[] = [];
async function mkdtempIn(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

async function webdav(items: number) {
  const dav = await startApacheDav(await mkdtempIn("kb-bench-dav-"));
  try {
    await dav.setPassword(USER, PASSWORD);
    for (let i = 0; i < items; i++) {
      const folder = path.join(dav.files, "bench", `folder-${i % 10}`);
      if (i < 10) await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, `item-${i}.md`), `# Item ${i}\n\n${body(i)}\n`);
    }
    await syncTwice("Apache WebDAV", { kind: "webdav", url: `${dav.origin}/bench/`, username: USER, password: PASSWORD }, items);
  } finally {
    await dav.close();
  }
}

async function imap(items: number) {
  const server = await startDovecot(await mkdtempIn("kb-bench-imap-"));
  try {
    await server.setPassword(USER, PASSWORD);
    const client = new ImapFlow({
      host: server.host,
      port: server.port,
      secure: false,
      auth: { user: USER, pass: PASSWORD },
      logger: false,
    });
    await client.connect();
    try {
      for (let i = 0; i < items; i++)
        await client.append(
          "INBOX",
          [
            "From: Bench <bench@example.com>",
            "To: support@example.com",
            `Subject: Request ${i}`,
            `Date: Mon, 02 Mar 2026 ${String(i % 24).padStart(2, "0")}:00:00 +0000`,
            `Message-ID: <bench-${i}@example.com>`,
            "Content-Type: text/plain; charset=UTF-8",
            "",
            body(i),
          ].join("\r\n"),
        );
    } finally {
      await client.logout();
    }
    await syncTwice(
      "Dovecot IMAP",
      { kind: "imap", url: `imap://${server.host}:${server.port}/INBOX`, username: USER, password: PASSWORD },
      items,
    );
  } finally {
    await server.close();
  }
}

async function mediawiki(items: number) {
  const wiki = await startMediaWiki(await mkdtempIn("kb-bench-wiki-"));
  try {
    // The wiki's own Main Page is one of the items.
    await wiki.importPages(
      Object.fromEntries(Array.from({ length: items - 1 }, (_, i) => [`Bench page ${i}`, `== Item ${i} ==\n${body(i)}`])),
    );
    await syncTwice("MediaWiki", { kind: "mediawiki", url: wiki.api, namespaces: [0] }, items);
  } finally {
    await wiki.close();
  }
}

export async function runSourcesBench({ items }: { items: number }): Promise<void> {
  Object.assign(process.env, {
    DATA_DIR: await mkdtempIn("kb-bench-sources-data-"),
    SOURCE_ALLOW_HOSTS: "127.0.0.1",
    SOURCE_SECRET_KEY: "bench-source-secret-key-0123456789",
  });
  console.log(`sources: ${items} items each, through the sync engine into a store (${os.cpus().length} CPUs; node ${process.version})\n`);
  try {
    for (const [label, missing, run] of [
      ["Apache WebDAV", apacheMissing(), webdav],
      ["Dovecot IMAP", dovecotMissing(), imap],
      ["MediaWiki", mediawikiMissing(), mediawiki],
    ] as const) {
      if (missing) console.log(`${label.padEnd(18)} not run: ${missing}`);
      else await run(items);
    }
  } finally {
    for (const dir of temps) await rm(dir, { recursive: true, force: true });
  }
}
