/**
 * A Git repository served over smart HTTP by the real `git http-backend` (a small CGI wrapper on a loopback
 * port), and a few commands to make commits in it, for the Git source tests.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

const gitEnv = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };

export interface GitRepo {
  /** The repository's clone URL. */
  url: string;
  /** Writes (string) or deletes (null) files, commits them to main, and returns the commit id. */
  commit(files: Record<string, string | null>): string;
  /** Requests the server answered, by path (info/refs, git-upload-pack). */
  requests: string[];
  close(): Promise<void>;
}

/** A repository `name` under `root`, served on 127.0.0.1:`port` (0: any free port). */
export async function serveGitRepo(root: string, name = "docs.git", port = 0): Promise<GitRepo> {
  const work = path.join(root, "work");
  mkdirSync(work, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: work, env: { ...process.env, ...gitEnv } })
      .toString()
      .trim();
  git("init", "--quiet", "--initial-branch=main");
  const bare = path.join(root, name);
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(url.pathname);
    const cgi = spawn("git", ["http-backend"], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
        REMOTE_ADDR: "127.0.0.1",
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const i = line.indexOf(":");
        const key = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (key.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(key, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on("end", () => res.end());
    cgi.on("error", () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/${name}`,
    requests,
    commit(files) {
      for (const [file, content] of Object.entries(files)) {
        const full = path.join(work, file);
        if (content === null) rmSync(full, { force: true });
        else {
          mkdirSync(path.dirname(full), { recursive: true });
          writeFileSync(full, content);
        }
      }
      git("add", "-A");
      git("commit", "--quiet", "-m", "change");
      rmSync(bare, { recursive: true, force: true });
      execFileSync("git", ["clone", "--quiet", "--bare", work, bare]);
      return git("rev-parse", "HEAD");
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
