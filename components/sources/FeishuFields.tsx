import { Field, inputClass } from "@/components/ui";
import type { SourceMessages } from "./messages";

const list = (s: string) =>
  s
    .split(/[,，\s]+/)
    .map((p) => p.trim())
    .filter(Boolean);

/** A Feishu / Lark source's settings from the add form: the service, an API override, the app's credential, what to read. */
export function feishuBody(get: (name: string) => string, secret: string): Record<string, unknown> {
  return {
    domain: get("domain") || "feishu",
    ...(get("apiUrl") ? { apiUrl: get("apiUrl") } : {}),
    appId: get("appId"),
    password: secret,
    spaces: list(get("spaces")),
    folders: list(get("folders")),
  };
}

/** The add form's fields for a Feishu / Lark source. */
export function FeishuFields({ t }: { t: SourceMessages }) {
  return (
    <>
      <Field label={t.feishuDomain}>
        <select name="domain" data-testid="source-feishu-domain" defaultValue="feishu" className={inputClass}>
          <option value="feishu">{t.feishuDomainFeishu}</option>
          <option value="lark">{t.feishuDomainLark}</option>
        </select>
      </Field>
      <Field label={t.feishuApiUrl}>
        <input name="apiUrl" data-testid="source-api-url" className={inputClass} placeholder="https://open.feishu.cn" />
      </Field>
      <Field label={t.feishuAppId}>
        <input name="appId" data-testid="source-app-id" required autoComplete="off" className={inputClass} placeholder="cli_…" />
      </Field>
      <Field label={t.feishuAppSecret}>
        <input name="password" data-testid="source-password" type="password" required autoComplete="off" className={inputClass} />
      </Field>
      <Field label={t.feishuSpaces}>
        <input name="spaces" data-testid="source-spaces" className={inputClass} />
      </Field>
      <Field label={t.feishuFolders}>
        <input name="folders" data-testid="source-folders" className={inputClass} />
      </Field>
    </>
  );
}
