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

  it("keeps English in the English UI, and an unknown error as recorded", () => {
    expect(syncErrorText("no answer within 30 s", "en")).toBe("no answer within 30 s");
    expect(syncErrorText("ECONNRESET", "zh")).toBe("ECONNRESET");
  });
});
