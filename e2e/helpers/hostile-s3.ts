/**
 * A hostile S3-compatible server for the source tests: it answers ListObjectsV2 with whatever keys it is given
 * (`..` segments, keys outside the prefix), can make the listing never end (the same continuation token again,
 * or a new one every page, with new keys on each page if asked), and serves objects slowly. Signatures are not checked; every request is recorded.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface HostileS3 {
  endpoint: string;
  /** Object bodies by request path ("/bucket/key"): what a GET there answers. */
  objects: Map<string, string>;
  /** The keys each listing page names. */
  keys: string[];
  /** When set, the keys of listing page `page` (1, 2, …) instead of `keys`: new ones every page. */
  pageKeys: ((page: number) => string[]) | null;
  /** "same": truncated forever with one token; "new": truncated forever with a new token each page. */
  endless: "no" | "same" | "new";
  /** Delay before each object's answer. */
  delayMs: number;
  /** Paths requested, in order (listings as "/bucket?list"). */
  requests: string[];
  objectGets(): number;
  close(): Promise<void>;
}

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export async function serveHostileS3(bucket: string): Promise<HostileS3> {
  let page = 0;
  const s3: Omit<HostileS3, "endpoint" | "close"> = {
    objects: new Map(),
    keys: [],
    pageKeys: null,
    endless: "no",
    delayMs: 0,
    requests: [],
    objectGets: () => s3.requests.filter((r) => !r.endsWith("?list")).length,
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === `/${bucket}` && url.searchParams.get("list-type") === "2") {
      s3.requests.push(`/${bucket}?list`);
      page++;
      const truncated = s3.endless !== "no";
      const token = s3.endless === "new" ? `page-${page}` : "again";
      const contents = (s3.pageKeys?.(page) ?? s3.keys)
        .map((k) => `<Contents><Key>${xmlEscape(k)}</Key><ETag>"${k.length}"</ETag><Size>1</Size></Contents>`)
        .join("");
      res.writeHead(200, { "content-type": "application/xml" });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name>${contents}` +
          `<IsTruncated>${truncated}</IsTruncated>${truncated ? `<NextContinuationToken>${token}</NextContinuationToken>` : ""}</ListBucketResult>`,
      );
      return;
    }
    s3.requests.push(url.pathname);
    const body = s3.objects.get(url.pathname);
    const answer = () => {
      if (res.destroyed) return;
      if (body === undefined) res.writeHead(404).end("<Error><Message>NoSuchKey</Message></Error>");
      else res.writeHead(200, { etag: `"${body.length}"` }).end(body);
    };
    if (s3.delayMs > 0) setTimeout(answer, s3.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(s3, {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
