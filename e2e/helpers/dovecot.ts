/**
 * A real IMAP server for the IMAP source's tests: Debian's Dovecot, started in the foreground from a config file
 * of its own in a temporary folder (passwd-file accounts, maildir, its own loopback port, no TLS), logging every
 * session's commands (rawlog) so a test can tell what a sync asked for, with the ACL plugin (RFC 4314 rights read from
 * a dovecot-acl file in the mailbox's folder) so a test can withdraw an account's right to read its mailbox. Dovecot's master runs as root and its
 * mail processes as nobody. Null (with the reason) where dovecot-imapd is missing.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { freePort } from "./apache-dav";
import { stopChild, waitListening } from "./daemon";

const DOVECOT = "/usr/sbin/dovecot";
const MAIL_UID = 65534;
const MAIL_GID = 65534;

export interface ImapServer {
  host: string;
  port: number;
  /** Sets (or replaces) an account's password; resolves once Dovecot's next login reads it. */
  setPassword(user: string, password: string): Promise<void>;
  /**
   * The IMAP commands the server received in each session of `user` (its rawlog), tags and logins left out, e.g.
   * ["SELECT INBOX", "UID SEARCH ALL", …]; sessions in the order they began.
   */
  sessions(user: string): Promise<string[][]>;
  /**
   * The rights `user` has on its INBOX from now on, as RFC 4314 letters ("l": it may see the mailbox, "r": read
   * it…); null: all of them again (no ACL file).
   */
  setInboxRights(user: string, rights: string | null): Promise<void>;
  close(): Promise<void>;
}

/** Why an IMAP test cannot run here, or null when it can. */
export function dovecotMissing(): string | null {
  if (!existsSync(DOVECOT) || !existsSync("/usr/lib/dovecot/imap"))
    return "dovecot-imapd is not installed (apt-get install dovecot-imapd; .ci/run installs it)";
  if (process.getuid?.() !== 0) return "Dovecot is started as root here";
  return null;
}

const conf = (dir: string, port: number) => `
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
# A refused login is answered at once (Dovecot waits 2 s by default).
auth_failure_delay = 0
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = ${MAIL_UID}
first_valid_gid = ${MAIL_GID}
default_internal_user = dovecot
default_login_user = dovenull
rawlog_dir = ${dir}/rawlog/%u
mail_plugins = acl
protocol imap {
  mail_plugins = $mail_plugins imap_acl
}
plugin {
  acl = vfile
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=${MAIL_UID} gid=${MAIL_GID} home=${dir}/home/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
`;

/** Starts Dovecot with its state under `dir` (new or empty; the test's to remove). */
export async function startDovecot(dir: string, port?: number): Promise<ImapServer> {
  const listen = port ?? (await freePort());
  await chmod(dir, 0o755);
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const mode = (await stat(d)).mode & 0o7777;
    if (!(mode & 0o001)) await chmod(d, mode | 0o001);
  }
  for (const sub of ["mail", "home", "rawlog"]) {
    await mkdir(path.join(dir, sub), { recursive: true });
    await chown(path.join(dir, sub), MAIL_UID, MAIL_GID);
  }
  await mkdir(path.join(dir, "run"), { recursive: true });
  await mkdir(path.join(dir, "state"), { recursive: true });
  await writeFile(path.join(dir, "users"), "");
  await writeFile(path.join(dir, "dovecot.conf"), conf(dir, listen));
  const child = spawn(DOVECOT, ["-F", "-c", path.join(dir, "dovecot.conf")], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  await waitListening("dovecot", listen, child, () => out, path.join(dir, "dovecot.log"));
  const users = new Map<string, string>();
  let stamp = 0;
  return {
    host: "127.0.0.1",
    port: listen,
    async setPassword(user, password) {
      users.set(user, password);
      // Whole or not at all: a login must never read a half-written file.
      await writeFile(path.join(dir, "users.new"), [...users].map(([u, p]) => `${u}:${p}\n`).join(""));
      // Dovecot re-reads the file when its modification second changes: each write gets a second of its own.
      stamp = Math.max(stamp + 1, Math.floor(Date.now() / 1000));
      await utimes(path.join(dir, "users.new"), stamp, stamp);
      await rename(path.join(dir, "users.new"), path.join(dir, "users"));
      // …and looks at it at most once a second: a login from the next second on sees this file.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
      const raw = path.join(dir, "rawlog", user);
      await mkdir(raw, { recursive: true });
      await chown(raw, MAIL_UID, MAIL_GID);
    },
    async sessions(user) {
      const raw = path.join(dir, "rawlog", user);
      const files = (await readdir(raw).catch(() => [] as string[])).filter((f) => f.endsWith(".in")).sort();
      const out: string[][] = [];
      for (const f of files) {
        const lines = (await readFile(path.join(raw, f), "utf8")).split(/\r?\n/);
        // "<time> <tag> <command>"
        const commands = lines.flatMap((l) => /^\d+\.\d+ \S+ (.+)$/.exec(l)?.[1] ?? []).filter((c) => !/^(LOGIN|AUTHENTICATE)\b/i.test(c));
        out.push(commands);
      }
      return out;
    },
    async setInboxRights(user, rights) {
      // A maildir's INBOX is its root folder; each session reads the file when it opens the mailbox.
      const file = path.join(dir, "mail", user, "dovecot-acl");
      if (rights === null) await rm(file, { force: true });
      else await writeFile(file, `owner ${rights}\n`);
    },
    close: () => stopChild(child),
  };
}
