/**
 * Where a file of a Git source opens in its host's web view, by the URL shapes each kind of host answers; a
 * plain Git server (no web view known) gets none. The kind is read from the host name: the public hosts, and a
 * self-hosted one named after its software (gitlab.example.com, git.example.com/scm/… for Bitbucket Server).
 */
type HostKind = "github" | "gitlab" | "gitea" | "bitbucket" | "bitbucket-server";

function hostKind(url: URL): HostKind | null {
  const host = url.hostname.toLowerCase();
  const named = (...words: string[]) => words.some((w) => host === `${w}.com` || host === `${w}.org` || host.split(".").includes(w));
  if (named("github")) return "github";
  if (named("gitlab")) return "gitlab";
  if (named("gitea", "forgejo", "codeberg")) return "gitea";
  if (host === "bitbucket.org") return "bitbucket";
  if (url.pathname.startsWith("/scm/") || named("bitbucket")) return "bitbucket-server";
  return null;
}

/** The web address of `file` at `commit` in the repository cloned from `repoUrl`, or null when the host has no known web view. */
export function gitFileLink(repoUrl: string, commit: string, file: string): string | null {
  const url = new URL(repoUrl);
  const kind = hostKind(url);
  if (!kind) return null;
  const filePath = file.split("/").map(encodeURIComponent).join("/");
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  const base = url.href.replace(/\/+$/, "").replace(/\.git$/, "");
  switch (kind) {
    case "github":
      return `${base}/blob/${commit}/${filePath}`;
    case "gitlab":
      return `${base}/-/blob/${commit}/${filePath}`;
    case "gitea":
      return `${base}/src/commit/${commit}/${filePath}`;
    case "bitbucket":
      return `${base}/src/${commit}/${filePath}`;
    case "bitbucket-server": {
      // Cloned from /scm/PROJECT/repo.git, browsed at /projects/PROJECT/repos/repo/browse/….
      const m = /^(.*?)\/scm\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url.pathname);
      if (!m) return null;
      return `${url.origin}${m[1]}/projects/${m[2]}/repos/${m[3]}/browse/${filePath}?at=${commit}`;
    }
  }
}
