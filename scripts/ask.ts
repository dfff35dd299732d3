/**
 * Ask the knowledge base from the terminal, through the same MCP tools and chat logic as the web app:
 *   npm run ask -- "question" [--kb NAME] [--json]
 * Uses MCP_URL when set (a running app), else serves the MCP endpoint from this process on a loopback port
 * over the configured store (DATA_DIR). Exit code 1 on failure.
 */
// First: on an older Node.js or before `npm ci` this stops with what to do.
import "./node-version.mjs";
import "./command-line";
import { parseArgs } from "node:util";
import { AskError, ask, formatAnswer } from "@/lib/ask/ask";
import { getConfig } from "@/lib/config";
import { getStore } from "@/lib/store";
import { type LocalMcp, startLocalMcp } from "./local-mcp";

const USAGE = 'Usage: npm run ask -- "question" [--kb NAME] [--json]';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { kb: { type: "string" }, json: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
  });
  const question = positionals.join(" ").trim();
  if (values.help || !question) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const config = getConfig();
  let local: LocalMcp | null = null;
  try {
    let mcpUrl = config.chat.mcpUrl;
    if (!mcpUrl) {
      local = await startLocalMcp({ store: await getStore() });
      mcpUrl = local.url;
    }
    const result = await ask({ question, kb: values.kb, config: config.chat, mcpUrl });
    console.log(values.json ? JSON.stringify(result, null, 2) : formatAnswer(result));
    return 0;
  } catch (err) {
    const message = err instanceof AskError || err instanceof Error ? err.message : String(err);
    if (values.json) console.log(JSON.stringify({ question, error: message }));
    else console.error(`ask failed: ${message}`);
    return 1;
  } finally {
    await local?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
