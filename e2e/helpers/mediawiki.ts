/**
 * A real MediaWiki for the MediaWiki source's tests: Debian's mediawiki package, installed into a temporary folder
 * by its own maintenance/install.php over SQLite, served by PHP's built-in server on its own loopback port (its
 * log is the request log a test reads). The test edits through the wiki's API as its admin. Null (with the reason)
 * where mediawiki or php-sqlite3 is missing.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./apache-dav";
import { stopChild } from "./daemon";

const MW = "/usr/share/mediawiki";
const PHP = "/usr/bin/php";
const ADMIN = "Admin";
const ADMIN_PASSWORD = "wiki-admin-password-1";
const run = promisify(execFile);
const UNREADABLE = "unreadable.txt";
/**
 * Pages nobody may read, the way authorization extensions (Lockdown, AccessControl) rule it: core's
 * getUserPermissionsErrors hook denying the "read" action. Read on every request, so a test changes it at once.
 */
const READ_RULE = `
$wgHooks['getUserPermissionsErrors'][] = static function ( $title, $user, $action, &$result ) {
  if ( $action !== 'read' ) return true;
  $denied = @file( __DIR__ . '/${UNREADABLE}', FILE_IGNORE_NEW_LINES ) ?: [];
  if ( !in_array( $title->getPrefixedText(), $denied, true ) ) return true;
  $result = [ 'badaccess-group0' ];
  return false;
};
`;

export interface Wiki {
  /** http://127.0.0.1:<port>/api.php */
  api: string;
  origin: string;
  /** The requests the server answered, in order, "METHOD /path?query" as logged (decoded by nothing). */
  requests(): string[];
  edit(title: string, text: string): Promise<void>;
  /** Creates many pages at once (title → wikitext), by the wiki's own importTextFiles.php: one process, no request. */
  importPages(pages: Record<string, string>): Promise<void>;
  remove(title: string): Promise<void>;
  move(from: string, to: string): Promise<void>;
  /** A bot password of the admin with the "basic" grant; returns the user name to log in with and the password. */
  botPassword(app: string): Promise<{ username: string; password: string }>;
  /** Every bot password of the admin stops working. */
  revokeBotPasswords(): Promise<void>;
  /** From now on nobody may read these pages (titles as the wiki spells them), as an authorization extension rules. */
  forbidRead(titles: string[]): Promise<void>;
  close(): Promise<void>;
}

export function mediawikiMissing(): string | null {
  if (!existsSync(path.join(MW, "maintenance", "install.php")))
    return "mediawiki is not installed (apt-get install mediawiki; .ci/run installs it)";
  if (!existsSync(PHP)) return "php is not installed";
  // The installer would fail without it, and the test with an error instead of this reason.
  if (!/^pdo_sqlite$/m.test(execFileSync(PHP, ["-m"], { encoding: "utf8" })))
    return "php-sqlite3 is not installed (apt-get install php-sqlite3; .ci/run installs it)";
  return null;
}

export async function startMediaWiki(dir: string, listen?: number): Promise<Wiki> {
  const port = listen ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const env = { ...process.env, MW_CONFIG_FILE: path.join(dir, "LocalSettings.php") };
  await run(
    PHP,
    [
      `${MW}/maintenance/install.php`,
      "--dbtype=sqlite",
      `--dbpath=${path.join(dir, "db")}`,
      `--confpath=${dir}`,
      `--server=${origin}`,
      "--scriptpath=",
      `--pass=${ADMIN_PASSWORD}`,
      "--lang=en",
      "TestWiki",
      ADMIN,
    ],
    { env, timeout: 120_000 },
  );
  // Edits show in recent changes at once; no job queue left for a request to run.
  await appendFile(path.join(dir, "LocalSettings.php"), `\n$wgJobRunRate = 0;\n$wgEnableBotPasswords = true;\n${READ_RULE}`);
  const child = spawn(PHP, ["-S", `127.0.0.1:${port}`, "-t", MW], { env, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  const onData = (d: Buffer) => {
    for (const line of d.toString().split("\n")) {
      const m = /\[\d{3}\]: (\w+ \S+)/.exec(line);
      if (m) log.push(m[1]);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const api = `${origin}/api.php`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${api}?action=query&format=json`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 100 || child.exitCode !== null) throw new Error("the MediaWiki server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  const admin = await session(api, ADMIN, ADMIN_PASSWORD);
  return {
    api,
    origin,
    requests: () => [...log],
    edit: async (title, text) => admin.write({ action: "edit", title, text, summary: "test" }),
    async importPages(pages) {
      const folder = await mkdtemp(path.join(dir, "import-"));
      try {
        const files = await Promise.all(
          Object.entries(pages).map(async ([title, text]) => {
            const file = path.join(folder, `${title}.txt`);
            await writeFile(file, text);
            return file;
          }),
        );
        // In slices: one command line holds only so many file names.
        for (let i = 0; i < files.length; i += 500)
          await run(PHP, [`${MW}/maintenance/importTextFiles.php`, "--rc", ...files.slice(i, i + 500)], { env, timeout: 600_000 });
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
    remove: async (title) => admin.write({ action: "delete", title, reason: "test" }),
    move: async (from, to) => admin.write({ action: "move", from, to, noredirect: "1", reason: "test" }),
    async botPassword(app) {
      // 32 of the characters MediaWiki generates bot passwords from (0-9, a-w): it takes no other as one.
      const password = Array.from({ length: 32 }, () => "0123456789abcdefghijklmnopqrstuvw"[Math.floor(Math.random() * 33)]).join("");
      await run(PHP, [`${MW}/maintenance/createBotPassword.php`, `--appid=${app}`, "--grants=basic", ADMIN, password], { env });
      return { username: `${ADMIN}@${app}`, password };
    },
    async revokeBotPasswords() {
      await run(PHP, [`${MW}/maintenance/invalidateBotPasswords.php`, `--user=${ADMIN}`], { env });
    },
    async forbidRead(titles) {
      await writeFile(path.join(dir, UNREADABLE), titles.map((t) => `${t}\n`).join(""));
    },
    close: () => stopChild(child),
  };
}

/** A logged-in API session (cookies kept) that writes with a CSRF token. */
async function session(api: string, user: string, password: string) {
  const cookies = new Map<string, string>();
  const call = async (params: Record<string, string>, form?: Record<string, string>) => {
    const url = new URL(api);
    for (const [k, v] of Object.entries({ ...params, format: "json", formatversion: "2" })) url.searchParams.set(k, v);
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form ? new URLSearchParams(form) : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const m = /^([^=;\s]+)=([^;]*)/.exec(c);
      if (m) cookies.set(m[1], m[2]);
    }
    const body = await res.json();
    if (body.error) throw new Error(`${params.action}: ${body.error.code} ${body.error.info}`);
    return body;
  };
  const loginToken = (await call({ action: "query", meta: "tokens", type: "login" })).query.tokens.logintoken;
  const login = await call({ action: "login" }, { lgname: user, lgpassword: password, lgtoken: loginToken });
  if (login.login.result !== "Success") throw new Error(`admin login: ${JSON.stringify(login.login)}`);
  return {
    async write(form: Record<string, string>) {
      const token = (await call({ action: "query", meta: "tokens" })).query.tokens.csrftoken;
      await call({ action: form.action }, { ...form, token });
    },
  };
}
