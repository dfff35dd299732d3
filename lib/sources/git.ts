/**
 * Git sources through the system `git` (on every machine this runs on; no JavaScript reimplementation to keep
 * up with servers' protocol versions): a bare repository of the source's own, fetched incrementally, so a
 * re-sync downloads only the objects new since the last commit seen, and only the files whose blob changed are
 * read and parsed. The remote's address is checked like every other fetch (public unless an admin allows the
 * host) and pinned with http.curloptResolve, so git connects to the address that was checked; no redirects,
 * http(s) only. A token goes in as an Authorization header through the environment, never on the command line;
 * git gets no other variable of the server's than lib/worker/child-env.ts allows.
 * A blob over SOURCE_MAX_BYTES (its size from `ls-tree -l`) fails alone, unread; the others are streamed, and so
 * is the tree's listing, entry by entry as git writes it (a tree of any size is walked in bounded memory).
 */
import { execFile, spawn } from "node:child_process";
import { lookup } from "node:dns/promises";
import { existsSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { isPrivateAddress } from "@/lib/net/public-address";
import { childEnv } from "@/lib/worker/child-env";
import type { Connector } from "./engine";
import { readable } from "./engine";
import { gitFileLink } from "./git-links";
import { FetchRefused, hostAllowed, overLimit } from "./http";
import type { SourceConfig } from "./schema";

type GitConfig = Extract<SourceConfig, { kind: "git" }>;
const run = promisify(execFile);
const TIMEOUT_MS = 10 * 60_000;
/** Output of the commands read whole (init, fetch --quiet, rev-parse): a few lines when all is well. */
const MAX_BUFFER = 1024 * 1024;
/** One entry of the tree's listing: its mode, type, id, size and path (a path longer than PATH_MAX could never be checked out). */
const MAX_TREE_ENTRY = 64 * 1024;
const gitEnv = (env: Record<string, string>) => childEnv({ GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", GIT_CONFIG_NOSYSTEM: "1", ...env });

async function git(cwd: string, args: string[], signal: AbortSignal, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run("git", args, { cwd, timeout: TIMEOUT_MS, maxBuffer: MAX_BUFFER, signal, env: gitEnv(env) });
  return stdout;
}

/** A blob's bytes, streamed from `git cat-file` (no output buffer to overflow), at most `maxBytes`. */
function readBlob(repo: string, blob: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["cat-file", "blob", blob], { cwd: repo, env: gitEnv({}), signal, timeout: TIMEOUT_MS });
    const parts: Buffer[] = [];
    let size = 0;
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        child.kill();
        return reject(new Error(overLimit(null, maxBytes)));
      }
      parts.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr = (stderr + c.toString("utf8")).slice(-2000);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(parts)) : reject(new Error(`git cat-file failed: ${stderr.trim() || `exit ${code}`}`)),
    );
  });
}

/**
 * The entries of `git ls-tree -r -l -z` of `commit`, one at a time as git writes them: git waits while one is handled
 * (the pipe fills), so the listing is never held whole.
 */
async function* treeEntries(repo: string, commit: string, signal: AbortSignal): AsyncGenerator<string> {
  const child = spawn("git", ["ls-tree", "-r", "-l", "-z", "--full-tree", commit], {
    cwd: repo,
    env: gitEnv({}),
    signal,
    timeout: TIMEOUT_MS,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString("utf8")).slice(-2000);
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  closed.catch(() => {}); // awaited below, once the output is read
  let rest: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      rest = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let from = 0;
      for (let end = rest.indexOf(0, from); end >= 0; end = rest.indexOf(0, from)) {
        yield rest.toString("utf8", from, end);
        from = end + 1;
      }
      rest = rest.subarray(from);
      if (rest.length > MAX_TREE_ENTRY) throw new Error(`git ls-tree wrote an entry longer than ${MAX_TREE_ENTRY} bytes`);
    }
  } finally {
    if (child.exitCode === null) child.kill();
  }
  const code = await closed;
  if (code !== 0) throw new Error(`git ls-tree failed: ${stderr.trim() || `exit ${code}`}`);
}

/** The address git may connect to for `url` (checked like ./http.ts), as a curl resolve entry. */
async function pinnedAddress(url: URL): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (addresses.length === 0 || (bad && !hostAllowed(host)))
    throw new FetchRefused(`${url.hostname} is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS)`);
  const address = addresses[0].address;
  return `${host}:${port}:${isIP(address) === 6 ? `[${address}]` : address}`;
}

/** Git's settings for one fetch, through GIT_CONFIG_* (so a token stays out of the process list). */
function configEnv(settings: [string, string][]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

export const gitConnector: Connector = async (ctx) => {
  const config = ctx.source.config as GitConfig;
  const url = new URL(config.url);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchRefused("only http(s) Git URLs are fetched");
  const repo = path.join(ctx.workDir, "repo.git");
  if (!existsSync(path.join(repo, "HEAD"))) await git(ctx.workDir, ["init", "--bare", "--quiet", repo], ctx.signal);
  const settings: [string, string][] = [
    ["http.curloptResolve", await pinnedAddress(url)],
    ["http.followRedirects", "false"],
    ["protocol.allow", "never"],
    ["protocol.http.allow", "always"],
    ["protocol.https.allow", "always"],
  ];
  if (ctx.secrets.token)
    settings.push(["http.extraHeader", `Authorization: Basic ${Buffer.from(`x-access-token:${ctx.secrets.token}`).toString("base64")}`]);
  const ref = `refs/sources/${config.branch}`;
  await git(
    repo,
    ["fetch", "--quiet", "--no-tags", "--", config.url, `+refs/heads/${config.branch}:${ref}`],
    ctx.signal,
    configEnv(settings),
  );
  const commit = (await git(repo, ["rev-parse", "--verify", `${ref}^{commit}`], ctx.signal)).trim();

  const wanted = (file: string) =>
    config.paths.length === 0 || config.paths.some((p) => file === p || file.startsWith(`${p.replace(/\/+$/, "")}/`));
  // -l: each blob's size, so one over SOURCE_MAX_BYTES is refused before it is read.
  for await (const line of treeEntries(repo, commit, ctx.signal)) {
    if (!line) continue;
    const tab = line.indexOf("\t");
    const [, type, blob, size] = line.slice(0, tab).split(/ +/);
    const file = line.slice(tab + 1);
    if (type !== "blob" || !wanted(file)) continue;
    // A plain Git server has no page for a file: its item keeps no link.
    const link = gitFileLink(config.url, commit, file) ?? "";
    if (!readable(file)) {
      ctx.skip(file);
      continue;
    }
    if (ctx.previous.get(file)?.version === blob && ctx.previous.get(file)?.documentId) {
      ctx.keep(file, { url: link });
      continue;
    }
    if (Number(size) > ctx.maxBytes) {
      ctx.fail(file, overLimit(Number(size), ctx.maxBytes));
      continue;
    }
    let data: Buffer;
    try {
      data = await readBlob(repo, blob, ctx.maxBytes, ctx.signal);
    } catch (err) {
      ctx.fail(file, err instanceof Error ? err.message : String(err));
      continue;
    }
    await ctx.ingest({ key: file, url: link, name: path.posix.basename(file), data, version: blob });
  }
  return { note: `commit ${commit}` };
};
