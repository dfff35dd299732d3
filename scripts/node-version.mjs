/**
 * The first import of every entry (server.mjs behind `npm start`, the CLI scripts): on a Node.js older than 22
 * the app starts and then fails every document (`Promise.withResolvers is not a function`) and upload, so the
 * entry stops at once instead, saying how to get Node.js 22; and before `npm ci` it says to run that rather
 * than failing on a missing package.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MIN_NODE_MAJOR = 22;

/** What is wrong with running on Node.js `version` (process.versions.node) at `execPath`, or null. */
export function nodeVersionProblem(version, execPath) {
  const major = Number(String(version).split(".")[0]);
  if (major >= MIN_NODE_MAJOR) return null;
  return (
    `This app needs Node.js ${MIN_NODE_MAJOR} or later; this is Node.js v${version} (${execPath}).\n` +
    "Run it with Node.js 22: `bash scripts/app.sh` (installs Node.js 22 into .tools/ when needed), or " +
    "`source scripts/node22.sh` in this shell and then the same command again."
  );
}

/** What is missing from the app folder `root` before `npm ci`, or null. */
export function dependenciesProblem(root) {
  if (existsSync(path.join(root, "node_modules", "next", "package.json"))) return null;
  return "The npm packages are not installed: run `npm ci` first (or `bash scripts/app.sh`, which installs, builds and starts).";
}

const problem =
  nodeVersionProblem(process.versions.node, process.execPath) ?? dependenciesProblem(fileURLToPath(new URL("..", import.meta.url)));
if (problem) {
  console.error(problem);
  process.exit(1);
}
