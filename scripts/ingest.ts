/**
 * Bulk ingest from the command line into the configured store (DATA_DIR, EMBEDDING_*):
 *   npm run ingest -- <files or folders…> [--kb NAME] [--title T] [--author A] [--tags a,b]
 *   npm run ingest -- --reindex      re-chunk and re-embed everything (after changing the embedder)
 * Folders are walked recursively (hidden files skipped). Exit code 1 when any file failed.
 */
// First: on an older Node.js or before `npm ci` this stops with what to do.
import "./node-version.mjs";
import "./command-line";
import { stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { getConfig } from "@/lib/config";
import { getEmbedder } from "@/lib/embed";
import { addConcurrently, type BatchFailure, createBatchIngest, listFiles, readInputFile, reindexAll } from "@/lib/ingest";
import { fileNameOf, parseTags } from "@/lib/kb/fields";
import { isSupported } from "@/lib/parse";
import { configuredEmbedder, openStore } from "@/lib/store";
import type { IngestProgress } from "@/lib/types";

const USAGE = `Usage:
  npm run ingest -- <files or folders…> [--kb NAME] [--title T] [--author A] [--tags a,b] [--wait]
  npm run ingest -- --reindex
--wait: before exiting, wait out STORE_VERSION_RETENTION_S (60) and remove the old versions the ingest made
(without it they stay until the next write).`;

/** Files named, plus supported files found in folders named (unsupported ones there are only counted). */
async function expand(inputs: string[]): Promise<{ files: string[]; missing: string[]; unsupported: number }> {
  const files: string[] = [];
  const missing: string[] = [];
  let unsupported = 0;
  for (const input of inputs) {
    const abs = path.resolve(input);
    const s = await stat(abs).catch(() => null);
    if (!s) missing.push(input);
    else if (s.isDirectory()) {
      const found = await listFiles(abs);
      unsupported += found.filter((f) => !isSupported(f)).length;
      files.push(...found.filter(isSupported).map((f) => path.join(abs, f)));
    } else files.push(abs);
  }
  return { files, missing, unsupported };
}

function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") ? rel : file;
}

function progressBar() {
  const bar = new cliProgress.SingleBar(
    { format: "{bar} {value}/{total} files | {file} {stage}", hideCursor: true, clearOnComplete: false, etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  const onProgress = (p: IngestProgress) => {
    const stage = p.stage === "embedding" && p.total ? `embedding ${p.done ?? 0}/${p.total}` : p.stage;
    bar.update({ file: p.file.length > 40 ? `…${p.file.slice(-39)}` : p.file, stage });
  };
  return { bar, onProgress };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      kb: { type: "string" },
      title: { type: "string" },
      author: { type: "string" },
      tags: { type: "string" },
      reindex: { type: "boolean", default: false },
      wait: { type: "boolean", default: false },
      // The default since --wait exists; still accepted.
      "no-wait": { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const cfg = getConfig();
  const t0 = performance.now();
  // A reindex builds with the configured embedder; adding files keeps the one the store was built with.
  const embedder = values.reindex ? getEmbedder(cfg.embedding) : await configuredEmbedder(cfg);

  if (values.reindex) {
    if (positionals.length) throw new Error(`--reindex takes no files.\n${USAGE}`);
    const store = await openStore({ uri: cfg.dataDir, embedder, allowMismatch: true });
    const total = (await store.listDocuments()).length;
    console.log(`Reindexing ${total} documents in ${cfg.dataDir} with ${embedder.name}${store.mismatch ? " (embedder changed)" : ""}`);
    const { bar, onProgress } = progressBar();
    bar.start(total, 0, { file: "", stage: "" });
    let done = 0;
    const r = await reindexAll(store, (p) => {
      if (p.stage === "done") bar.update(++done);
      onProgress(p);
    });
    bar.stop();
    console.log(`Reindexed ${r.documents} documents, ${r.chunks} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    store.close();
    return 0;
  }

  if (positionals.length === 0) {
    console.error(USAGE);
    return 2;
  }
  const { files, missing, unsupported } = await expand(positionals);
  const store = await openStore({ uri: cfg.dataDir, embedder });
  let tags: string[] | undefined;
  try {
    tags = values.tags === undefined ? undefined : parseTags(values.tags.split(","));
  } catch (err) {
    console.error(`--tags: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  const counts = { added: 0, updated: 0, unchanged: 0 };
  const failed: { file: string; error: string }[] = missing.map((m) => ({ file: m, error: "No such file or folder" }));
  let chunks = 0;

  const { bar, onProgress } = progressBar();
  bar.start(files.length, 0, { file: "", stage: "" });
  // Many documents per commit (each still atomic for readers); maintenance runs once at the end.
  const batch = createBatchIngest(store, { onProgress });
  const noteFailures = (list: BatchFailure[]) => {
    for (const f of list) {
      failed.push({ file: f.filename, error: f.error });
      counts[f.status]--; // counted when prepared; the write failed
    }
  };
  let finished = 0;
  await addConcurrently(files, async (file) => {
    try {
      const data = await readInputFile(file);
      const { result: r, failures } = await batch.add({
        filename: fileNameOf(path.basename(file)),
        data,
        kb: values.kb,
        origin: "cli",
        title: files.length === 1 ? values.title : undefined,
        author: values.author,
        tags,
      });
      counts[r.status]++;
      if (r.status !== "unchanged") chunks += r.document.chunkCount;
      noteFailures(failures);
    } catch (err) {
      failed.push({ file: displayPath(file), error: err instanceof Error ? err.message : String(err) });
    }
    bar.update(++finished);
  });
  noteFailures(await batch.flush());
  bar.stop();
  const seconds = (performance.now() - t0) / 1000;
  if (counts.added + counts.updated > 0) {
    if (!values.wait) await store.optimize();
    else {
      // Versions are kept STORE_VERSION_RETENTION_S for readers in other processes; then dropped, so the data
      // dir is back to its size before this process exits.
      console.log(`removing old versions within ${cfg.store.versionRetentionMs / 1000} s…`);
      await store.settle();
    }
  }
  store.close();

  console.log(
    `added ${counts.added}, updated ${counts.updated}, unchanged ${counts.unchanged}, failed ${failed.length}; ` +
      `${chunks} chunks in ${seconds.toFixed(1)} s (kb "${values.kb ?? cfg.defaultKb}", ${cfg.dataDir})`,
  );
  if (unsupported) console.log(`skipped ${unsupported} file(s) of unsupported types in the folders given`);
  if (values.title && files.length > 1) console.log("note: --title applies to a single file only; titles came from the documents");
  for (const f of failed) console.error(`failed: ${f.file}: ${f.error}`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
