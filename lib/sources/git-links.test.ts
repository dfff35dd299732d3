import { describe, expect, it } from "vitest";
import { gitFileLink } from "./git-links";

const C = "0123456789abcdef0123456789abcdef01234567";

describe("Git file links", () => {
  it("follow each host kind's URL shape, and none for a plain Git server", () => {
    const cases: [string, string | null][] = [
      ["https://github.com/acme/handbook.git", `https://github.com/acme/handbook/blob/${C}/docs/a%20b.md`],
      ["https://github.example.com/acme/handbook", `https://github.example.com/acme/handbook/blob/${C}/docs/a%20b.md`],
      ["https://gitlab.com/acme/group/handbook.git", `https://gitlab.com/acme/group/handbook/-/blob/${C}/docs/a%20b.md`],
      ["https://gitlab.example.org/acme/handbook", `https://gitlab.example.org/acme/handbook/-/blob/${C}/docs/a%20b.md`],
      ["https://codeberg.org/acme/handbook.git", `https://codeberg.org/acme/handbook/src/commit/${C}/docs/a%20b.md`],
      ["https://gitea.example.com/acme/handbook.git", `https://gitea.example.com/acme/handbook/src/commit/${C}/docs/a%20b.md`],
      ["https://forgejo.example.com/acme/handbook", `https://forgejo.example.com/acme/handbook/src/commit/${C}/docs/a%20b.md`],
      ["https://bitbucket.org/acme/handbook.git", `https://bitbucket.org/acme/handbook/src/${C}/docs/a%20b.md`],
      ["https://git.example.com/scm/ops/handbook.git", `https://git.example.com/projects/ops/repos/handbook/browse/docs/a%20b.md?at=${C}`],
      ["https://git.example.com/handbook.git", null],
      ["http://127.0.0.1:4000/repo.git", null],
    ];
    for (const [repo, link] of cases) expect(gitFileLink(repo, C, "docs/a b.md"), repo).toBe(link);
  });

  it("never carries credentials written into the clone URL", () => {
    expect(gitFileLink("https://user:secret@github.com/acme/handbook.git", C, "a.md")).toBe(
      `https://github.com/acme/handbook/blob/${C}/a.md`,
    );
  });
});
