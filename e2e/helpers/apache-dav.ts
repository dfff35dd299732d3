/**
 * A real WebDAV server for the WebDAV source's tests: Debian's Apache with mod_dav and mod_dav_fs behind basic
 * auth, started from a config file of its own in a temporary folder, on its own loopback port, in one process
 * (`-X`) with keep-alive off so that it answers one request at a time and its access log is in request order.
 * The files it serves are a folder on disk the test writes to. Null (with the reason) where apache2 is missing.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { stopChild, waitListening } from "./daemon";

const APACHE = "/usr/sbin/apache2";
const MODULES = "/usr/lib/apache2/modules";
const RUN_AS = "www-data";
const MARK = "/.log-mark";

export interface DavServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** The folder on disk the server serves at `/`. */
  files: string;
  /**
   * The requests it answered, in order, as "METHOD /path STATUS" (the path decoded, non-ASCII bytes as \xHH). A
   * request of its own goes first: answered, it means every earlier request is in the log (one at a time).
   */
  requests(): Promise<string[]>;
  /** Sets (or replaces) the one account's password; the server reads the file on every request. */
  setPassword(user: string, password: string): Promise<void>;
  close(): Promise<void>;
}

/** Why a WebDAV test cannot run here, or null when it can. */
export function apacheMissing(): string | null {
  if (!existsSync(APACHE) || !existsSync(path.join(MODULES, "mod_dav_fs.so")))
    return "apache2 with mod_dav is not installed (apt-get install apache2; .ci/run installs it)";
  if (process.getuid?.() !== 0) return "Apache is started as root here (it drops to www-data)";
  return null;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const conf = (dir: string, port: number) => `
ServerRoot "${dir}"
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${dir}/httpd.pid"
ErrorLog "${dir}/error.log"
LogLevel warn
User ${RUN_AS}
Group ${RUN_AS}
KeepAlive Off
${["mpm_prefork", "authn_core", "authn_file", "auth_basic", "authz_core", "authz_user", "dav", "dav_fs", "mime"]
  .map((m) => `LoadModule ${m}_module ${MODULES}/mod_${m}.so`)
  .join("\n")}
TypesConfig /etc/mime.types
LogFormat "%m %U %>s" dav
CustomLog "${dir}/access.log" dav
DavLockDB "${dir}/lock/DavLock"
DocumentRoot "${dir}/files"
<Directory "${dir}/files">
  Dav On
  Options None
  AllowOverride AuthConfig
  AuthType Basic
  AuthName "kb-test"
  AuthBasicProvider file
  AuthUserFile "${dir}/htpasswd"
  Require valid-user
  # An account that signed in but may not read a folder gets 403, as from a drive's sharing rules (not 401).
  AuthzSendForbiddenOnFailure On
</Directory>
<Files ".ht*">
  Require all denied
</Files>
`;

/** Starts Apache serving `${dir}/files`; `dir` must be empty or new, and is the test's to remove. */
export async function startApacheDav(dir: string, port?: number): Promise<DavServer> {
  const listen = port ?? (await freePort());
  const files = path.join(dir, "files");
  await mkdir(files, { recursive: true });
  await mkdir(path.join(dir, "lock"), { recursive: true });
  // The worker runs as www-data: it must reach the files (a temp folder is created 0700) and write its lock database.
  // The folders above may only gain the bit to pass through, never lose one (one of them may be /tmp).
  await chmod(dir, 0o755);
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const mode = (await stat(d)).mode & 0o7777;
    if (!(mode & 0o001)) await chmod(d, mode | 0o001);
  }
  const { uid, gid } = await wwwData();
  await chown(path.join(dir, "lock"), uid, gid);
  await writeFile(path.join(dir, "httpd.conf"), conf(dir, listen));
  await writeFile(path.join(dir, "access.log"), "");
  const child = spawn(APACHE, ["-X", "-f", path.join(dir, "httpd.conf")], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  await waitListening("apache2", listen, child, () => out, path.join(dir, "error.log"));
  const server: DavServer = {
    origin: `http://127.0.0.1:${listen}`,
    port: listen,
    files,
    async requests() {
      await fetch(`http://127.0.0.1:${listen}${MARK}`).then((r) => r.arrayBuffer());
      return (await readFile(path.join(dir, "access.log"), "utf8")).split("\n").filter((l) => l && !l.includes(MARK));
    },
    async setPassword(user, password) {
      // {SHA}: one of the formats Apache reads; no htpasswd binary needed.
      const hash = createHash("sha1").update(password).digest("base64");
      await writeFile(path.join(dir, "htpasswd"), `${user}:{SHA}${hash}\n`);
    },
    close: () => stopChild(child),
  };
  return server;
}

async function wwwData(): Promise<{ uid: number; gid: number }> {
  const line = (await readFile("/etc/passwd", "utf8")).split("\n").find((l) => l.startsWith(`${RUN_AS}:`));
  if (!line) throw new Error(`no ${RUN_AS} user`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}
