/**
 * A source sync's error as the Chinese UI shows it. The engine records English sentences (lib/sources); the
 * known ones are matched here and said in Chinese, their names, addresses and numbers kept. An unknown one is
 * shown as recorded.
 */
const ZH: [RegExp, string][] = [
  [/^interrupted: the server stopped during this sync/, "已中断：同步期间服务器停止了（未删除任何内容，下次同步会完成）"],
  [/^the source was removed$/, "该来源已被删除"],
  [/^the knowledge base was deleted$/, "该知识库已被删除"],
  [/^the sitemap (\S+) answered HTTP (\d+)$/, "站点地图 $1 返回了 HTTP $2"],
  [/^SOURCE_SECRET_KEY is not set/, "未设置 SOURCE_SECRET_KEY：无法读取该来源的密钥。"],
  [/^this source's secrets were sealed with another SOURCE_SECRET_KEY$/, "该来源的密钥是用另一个 SOURCE_SECRET_KEY 加密的"],
  [/^S3 answered HTTP (\d+) for (\S+): ?(.*)$/, "S3 对 $2 返回了 HTTP $1：$3"],
  [/^the bucket listing did not end after (\d+) pages$/, "存储桶列表在 $1 页后仍未结束"],
  [
    /^the source holds more than (\d+) items \(SOURCE_MAX_ITEMS\): nothing was removed; raise the limit or narrow the source$/,
    "该来源的条目超过 $1 个（SOURCE_MAX_ITEMS）：未删除任何内容；请提高上限或缩小来源范围",
  ],
  [
    /^the source holds more than (\d+) items \(SOURCE_CONFIRM_OVER\): the first \d+ were indexed; confirm to index them all$/,
    "该来源的条目超过 $1 个（SOURCE_CONFIRM_OVER）：已索引前 $1 个；确认后将索引全部",
  ],
  [/^this source has no secret access key$/, "该来源没有 secret access key"],
  [/^git cat-file failed: (.*)$/, "git cat-file 失败：$1"],
  [
    /^(\S+) is not a public address \(an admin can allow it in SOURCE_ALLOW_HOSTS\)$/,
    "$1 不是公网地址（管理员可在 SOURCE_ALLOW_HOSTS 中允许它）",
  ],
  [
    /^the WebDAV server refused the credential \(HTTP 401\) for (.*): the password or app password was revoked, expired or changed; enter it again$/,
    "WebDAV 服务器拒绝了凭据（HTTP 401，$1）：密码或应用密码已被撤销、过期或更改，请重新输入",
  ],
  [/^the WebDAV server answered HTTP (\d+) to (\S+) (.*) after (\d+) retries$/, "WebDAV 服务器对 $2 $3 返回了 HTTP $1（已重试 $4 次）"],
  [/^the WebDAV server answered HTTP (\d+) to (\S+) (.*)$/, "WebDAV 服务器对 $2 $3 返回了 HTTP $1"],
  [
    /^the folder listing did not end after (\d+) folders \(SOURCE_MAX_LIST_PAGES\): nothing was removed$/,
    "文件夹列表在 $1 个文件夹后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
  ],
  [/^this source has no password$/, "该来源没有密码"],
  [
    /^the IMAP server refused the login of (\S+) \((.*)\): the password or app password was revoked, expired or changed; enter it again$/,
    "IMAP 服务器拒绝了 $1 的登录（$2）：密码或应用密码已被撤销、过期或更改，请重新输入",
  ],
  [/^the IMAP server could not be reached after (\d+) retries: (.*)$/, "重试 $1 次后仍无法连接 IMAP 服务器：$2"],
  [
    /^the wiki refused the login of (\S+) \((.*)\): the bot password was revoked, expired or changed; enter it again$/,
    "Wiki 拒绝了 $1 的登录（$2）：机器人密码已被撤销、过期或更改，请重新输入",
  ],
  [
    /^the wiki's listing did not end after (\d+) pages \(SOURCE_MAX_LIST_PAGES\)$/,
    "Wiki 的列表在 $1 页后仍未结束（SOURCE_MAX_LIST_PAGES）",
  ],
  [
    /^the wiki's listing repeats a continuation after (\d+) pages: it would never end$/,
    "Wiki 的列表在 $1 页后重复了续传标记：它永远不会结束",
  ],
  [
    /^Confluence refused the credential \(HTTP 401\): the API token was revoked or expired, or the e-mail changed; enter the token again$/,
    "Confluence 拒绝了凭据（HTTP 401）：API 令牌已被撤销或过期，或邮箱已更改，请重新输入令牌",
  ],
  [
    /^Confluence refused the credential \(HTTP 401\): the personal access token was revoked or expired; enter the token again$/,
    "Confluence 拒绝了凭据（HTTP 401）：个人访问令牌已被撤销或过期，请重新输入令牌",
  ],
  [
    /^Notion refused the integration token \(HTTP 401 unauthorized\): it was revoked, or the integration removed; enter a new token$/,
    "Notion 拒绝了集成令牌（HTTP 401）：令牌已被撤销或集成已被移除，请输入新令牌",
  ],
  [
    /^(Confluence|Notion) kept answering HTTP 429 \(rate limited\) to (.+) after its Retry-After waits$/,
    "$1 按 Retry-After 等待重试后仍对 $2 返回 HTTP 429（限流）",
  ],
  [
    /^Confluence's listing did not end after (\d+) pages \(SOURCE_MAX_LIST_PAGES\): nothing was removed$/,
    "Confluence 的列表在 $1 页后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
  ],
  [
    /^Confluence's listing repeats a cursor after (\d+) pages: it would never end$/,
    "Confluence 的列表在 $1 页后重复了游标：它永远不会结束",
  ],
  [
    /^Notion's search did not end after (\d+) pages \(SOURCE_MAX_LIST_PAGES\): nothing was removed$/,
    "Notion 的搜索在 $1 页后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
  ],
  [/^Notion's search repeats a cursor after (\d+) pages: it would never end$/, "Notion 的搜索在 $1 页后重复了游标：它永远不会结束"],
  [
    /^the space (\S+) is not visible to this account \(deleted, or its permission withdrawn\): nothing was removed$/,
    "此账号看不到空间 $1（已删除或权限被收回）：未删除任何内容",
  ],
  [/^the wiki answered HTTP (\d+) to (\S+) after (\d+) retries$/, "Wiki 对 $2 返回了 HTTP $1（已重试 $3 次）"],
  [/^the wiki answered HTTP (\d+) to (\S+)$/, "Wiki 对 $2 返回了 HTTP $1"],
  [
    /^Google refused the service account's key \((.*)\): the key was deleted or disabled, or the delegation withdrawn; enter a new key$/,
    "Google 拒绝了服务账号密钥（$1）：密钥已被删除或停用，或全网域授权已撤销，请输入新密钥",
  ],
  [
    /^Google refused the service account's token \(HTTP 401\): its key was revoked; enter a new key$/,
    "Google 拒绝了服务账号的令牌（HTTP 401）：其密钥已被撤销，请输入新密钥",
  ],
  [/^Google Drive answered HTTP (\d+) to (.*?): (.*)$/, "Google 云端硬盘对 $2 返回了 HTTP $1：$3"],
  [
    /^Microsoft Entra ID refused the app registration's credential \((.*)\): the client secret was deleted, expired or changed, or the app removed; enter it again$/,
    "Microsoft Entra ID 拒绝了应用注册的凭据（$1）：客户端密码已被删除、过期或更改，或应用已被移除，请重新输入",
  ],
  [
    /^Microsoft Graph refused the app's token \(HTTP 401 ?(.*)\): its credential was revoked; enter it again$/,
    "Microsoft Graph 拒绝了应用的令牌（HTTP 401 $1）：其凭据已被撤销，请重新输入",
  ],
  [/^Microsoft Graph answered HTTP (\d+) to (.*?): (.*)$/, "Microsoft Graph 对 $2 返回了 HTTP $1：$3"],
  [
    /^the (Google Drive|SharePoint) (folder listing|change feed) did not end after (\d+) pages \(SOURCE_MAX_LIST_PAGES\): nothing was removed$/,
    "$1 的列表或变更记录在 $3 页后仍未结束（SOURCE_MAX_LIST_PAGES）：未删除任何内容",
  ],
  [
    /^the (Google Drive|SharePoint) (folder listing|change feed) repeats a page token: it would never end; nothing was removed$/,
    "$1 的列表或变更记录重复了页标记：它永远不会结束；未删除任何内容",
  ],
  [/^this source has no service account key$/, "该来源没有服务账号密钥"],
  [/^this source has no client secret$/, "该来源没有客户端密码"],
  [
    /^Feishu\/Lark refused the app's credential \(code (\S+): (.*)\): the app secret was reset, or the app id is wrong; enter it again$/,
    "飞书/Lark 拒绝了应用凭据（代码 $1：$2）：App Secret 已被重置或 App ID 有误，请重新输入",
  ],
  [
    /^Feishu\/Lark refused the app's access token twice \(code (\d+)\) for (.*); check the app's credential$/,
    "飞书/Lark 两次拒绝了应用的访问令牌（代码 $1，$2）：请检查应用凭据",
  ],
  [
    /^the Feishu\/Lark listing of (.*) did not end after (\d+) pages \(SOURCE_MAX_LIST_PAGES\)$/,
    "飞书/Lark 中 $1 的列表在 $2 页后仍未结束（SOURCE_MAX_LIST_PAGES）",
  ],
  [
    /^the Feishu\/Lark listing of (.*) repeats a page token after (\d+) pages: it would never end$/,
    "飞书/Lark 中 $1 的列表在 $2 页后重复了分页标记：它永远不会结束",
  ],
  [
    /^Feishu\/Lark answered (.+?) to (.+?) \(still rate-limited after the retries\): (.*)$/,
    "飞书/Lark 对 $2 返回了 $1（重试后仍被限流）：$3",
  ],
  [/^Feishu\/Lark answered (.+?) to (.+?): (.*)$/, "飞书/Lark 对 $2 返回了 $1：$3"],
  [/^this source has no app secret$/, "该来源没有 App Secret"],
  [/^no answer within (\d+) s$/, "$1 秒内没有响应"],
  [/^more than (\d+) redirects$/, "重定向超过 $1 次"],
  [/^redirected outside the source to (\S+)$/, "被重定向到来源之外：$1"],
  [/^(\d+) bytes, larger than the limit of (\d+) bytes \(SOURCE_MAX_BYTES\)$/, "$1 字节，超过了 $2 字节的上限（SOURCE_MAX_BYTES）"],
  [/^larger than the limit of (\d+) bytes \(SOURCE_MAX_BYTES\)$/, "超过了 $1 字节的上限（SOURCE_MAX_BYTES）"],
];

export function syncErrorText(error: string, locale: "en" | "zh"): string {
  if (locale !== "zh") return error;
  const text = error.trim();
  for (const [re, zh] of ZH) if (re.test(text)) return text.replace(re, zh);
  return error;
}
