/**
 * FAQ entries from the command line, on the configured store (DATA_DIR):
 *   npm run faq -- export <file.csv|file.jsonl> [--kb NAME]   every accepted entry (of one knowledge base)
 *   npm run faq -- import <file.csv|file.jsonl> [--kb NAME]   adds the entries (kb column, else --kb, else DEFAULT_KB)
 * CSV columns: question, answer, phrasings and tags (" | "-separated), kb. Exit code 1 on failure.
 */
// First: on an older Node.js or before `npm ci` this stops with what to do.
import "./node-version.mjs";
import "./command-line";
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { getConfig } from "@/lib/config";
import { getFaqStore } from "@/lib/faq/store";
import { parseImport, toCsv, toJsonl } from "@/lib/faq/transfer";
import { getStore } from "@/lib/store";

const USAGE = "Usage: npm run faq -- export|import <file.csv|file.jsonl> [--kb NAME]";

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { kb: { type: "string" } } });
  const [command, file] = positionals;
  const format = file?.toLowerCase().endsWith(".jsonl") ? "jsonl" : file?.toLowerCase().endsWith(".csv") ? "csv" : null;
  if (!["export", "import"].includes(command) || !file || !format) {
    console.error(USAGE);
    return 2;
  }
  const store = await getStore();
  const faqs = await getFaqStore(store);
  if (command === "export") {
    const list = await faqs.list({ kb: values.kb, status: "accepted" });
    await writeFile(file, format === "csv" ? toCsv(list) : toJsonl(list));
    console.log(`Exported ${list.length} FAQ entr${list.length === 1 ? "y" : "ies"} to ${file}.`);
  } else {
    const entries = parseImport(await readFile(file, "utf8"), format, values.kb ?? getConfig().defaultKb);
    const added = await faqs.add(entries);
    console.log(`Imported ${added.length} FAQ entr${added.length === 1 ? "y" : "ies"} from ${file}.`);
  }
  store.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`faq failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
