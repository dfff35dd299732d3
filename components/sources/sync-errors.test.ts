import { describe, expect, it } from "vitest";
import { syncErrorText } from "./sync-errors";

describe("source sync errors in the Chinese UI", () => {
  it("says the engine's known errors in Chinese, keeping names and numbers", () => {
    expect(syncErrorText("the sitemap https://a.example/sitemap.xml answered HTTP 404", "zh")).toBe(
      "站点地图 https://a.example/sitemap.xml 返回了 HTTP 404",
    );
    expect(syncErrorText("10.0.0.5 is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS)", "zh")).toBe(
      "10.0.0.5 不是公网地址（管理员可在 SOURCE_ALLOW_HOSTS 中允许它）",
    );
    expect(syncErrorText("no answer within 30 s", "zh")).toBe("30 秒内没有响应");
    expect(
      syncErrorText(
        "the source holds more than 250 items (SOURCE_MAX_ITEMS): nothing was removed; raise the limit or narrow the source",
        "zh",
      ),
    ).toBe("该来源的条目超过 250 个（SOURCE_MAX_ITEMS）：未删除任何内容；请提高上限或缩小来源范围");
    expect(
      syncErrorText("interrupted: the server stopped during this sync (nothing was removed; the next sync completes it)", "zh"),
    ).toMatch(/^已中断/);
  });

  it("says the WebDAV, IMAP and MediaWiki sources' errors in Chinese", () => {
    expect(
      syncErrorText(
        "the WebDAV server refused the credential (HTTP 401) for /团队/: the password or app password was revoked, expired or changed; enter it again",
        "zh",
      ),
    ).toBe("WebDAV 服务器拒绝了凭据（HTTP 401，/团队/）：密码或应用密码已被撤销、过期或更改，请重新输入");
    expect(syncErrorText("the WebDAV server answered HTTP 503 to PROPFIND /busy/ after 3 retries", "zh")).toBe(
      "WebDAV 服务器对 PROPFIND /busy/ 返回了 HTTP 503（已重试 3 次）",
    );
    expect(syncErrorText("the WebDAV server answered HTTP 500 to GET /a b.md", "zh")).toBe("WebDAV 服务器对 GET /a b.md 返回了 HTTP 500");
    expect(
      syncErrorText(
        "the IMAP server refused the login of support (Authentication failed.): the password or app password was revoked, expired or changed; enter it again",
        "zh",
      ),
    ).toBe("IMAP 服务器拒绝了 support 的登录（Authentication failed.）：密码或应用密码已被撤销、过期或更改，请重新输入");
    expect(syncErrorText("the wiki's listing did not end after 5 pages (SOURCE_MAX_LIST_PAGES)", "zh")).toBe(
      "Wiki 的列表在 5 页后仍未结束（SOURCE_MAX_LIST_PAGES）",
    );
    expect(syncErrorText("the wiki answered HTTP 503 to query after 3 retries", "zh")).toBe("Wiki 对 query 返回了 HTTP 503（已重试 3 次）");
    expect(syncErrorText("the IMAP server could not be reached after 3 retries: Too many connections", "zh")).toBe(
      "重试 3 次后仍无法连接 IMAP 服务器：Too many connections",
    );
    expect(syncErrorText("the folder listing did not end after 5 folders (SOURCE_MAX_LIST_PAGES): nothing was removed", "zh")).toBe(
      "文件夹列表在 5 个文件夹后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
    );
  });

  it("says the Confluence and Notion sources' errors in Chinese", () => {
    expect(
      syncErrorText(
        "Notion refused the integration token (HTTP 401 unauthorized): it was revoked, or the integration removed; enter a new token",
        "zh",
      ),
    ).toBe("Notion 拒绝了集成令牌（HTTP 401）：令牌已被撤销或集成已被移除，请输入新令牌");
    expect(
      syncErrorText("Confluence kept answering HTTP 429 (rate limited) to GET /wiki/api/v2/spaces after its Retry-After waits", "zh"),
    ).toBe("Confluence 按 Retry-After 等待重试后仍对 GET /wiki/api/v2/spaces 返回 HTTP 429（限流）");
    expect(syncErrorText("Notion's search did not end after 4 pages (SOURCE_MAX_LIST_PAGES): nothing was removed", "zh")).toBe(
      "Notion 的搜索在 4 页后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
    );
    expect(
      syncErrorText(
        "Confluence refused the credential (HTTP 401): the personal access token was revoked or expired; enter the token again",
        "zh",
      ),
    ).toBe("Confluence 拒绝了凭据（HTTP 401）：个人访问令牌已被撤销或过期，请重新输入令牌");
  });

  it("keeps English in the English UI, and an unknown error as recorded", () => {
    expect(syncErrorText("no answer within 30 s", "en")).toBe("no answer within 30 s");
    expect(syncErrorText("ECONNRESET", "zh")).toBe("ECONNRESET");
  });

  it("says the Google Drive and SharePoint sources' errors in Chinese", () => {
    expect(
      syncErrorText(
        "Google refused the service account's key (invalid_grant: Invalid JWT Signature.): the key was deleted or disabled, or the delegation withdrawn; enter a new key",
        "zh",
      ),
    ).toBe("Google 拒绝了服务账号密钥（invalid_grant: Invalid JWT Signature.）：密钥已被删除或停用，或全网域授权已撤销，请输入新密钥");
    expect(
      syncErrorText(
        "Microsoft Entra ID refused the app registration's credential (invalid_client: AADSTS7000215: Invalid client secret provided.): the client secret was deleted, expired or changed, or the app removed; enter it again",
        "zh",
      ),
    ).toBe(
      "Microsoft Entra ID 拒绝了应用注册的凭据（invalid_client: AADSTS7000215: Invalid client secret provided.）：客户端密码已被删除、过期或更改，或应用已被移除，请重新输入",
    );
    expect(syncErrorText("Microsoft Graph answered HTTP 429 to the delta feed: The request has been throttled", "zh")).toBe(
      "Microsoft Graph 对 the delta feed 返回了 HTTP 429：The request has been throttled",
    );
    expect(syncErrorText("the SharePoint change feed did not end after 5 pages (SOURCE_MAX_LIST_PAGES): nothing was removed", "zh")).toBe(
      "SharePoint 的列表或变更记录在 5 页后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
    );
  });

  it("says the Feishu/Lark source's errors in Chinese", () => {
    expect(
      syncErrorText(
        "Feishu/Lark refused the app's credential (code 10014: app secret invalid): the app secret was reset, or the app id is wrong; enter it again",
        "zh",
      ),
    ).toBe("飞书/Lark 拒绝了应用凭据（代码 10014：app secret invalid）：App Secret 已被重置或 App ID 有误，请重新输入");
    expect(
      syncErrorText(
        "Feishu/Lark answered HTTP 429 code 99991400 to wiki space spc1 (still rate-limited after the retries): request trigger frequency limit",
        "zh",
      ),
    ).toBe("飞书/Lark 对 wiki space spc1 返回了 HTTP 429 code 99991400（重试后仍被限流）：request trigger frequency limit");
    expect(syncErrorText("the Feishu/Lark listing of wiki space spcLoop did not end after 4 pages (SOURCE_MAX_LIST_PAGES)", "zh")).toBe(
      "飞书/Lark 中 wiki space spcLoop 的列表在 4 页后仍未结束（SOURCE_MAX_LIST_PAGES）",
    );
  });
});
