import { useState } from "react";
import { Field, inputClass } from "@/components/ui";
import type { SourceKind } from "@/lib/sources/schema";
import type { SourceMessages } from "./messages";

/** The kinds read through a hosted service's API (no URL of their own; an optional API address instead). */
export const HOSTED_APIS: readonly SourceKind[] = ["notion", "google-drive", "sharepoint"];
const API_PLACEHOLDER: Partial<Record<SourceKind, string>> = {
  notion: "https://api.notion.com",
  "google-drive": "https://www.googleapis.com/",
  sharepoint: "https://graph.microsoft.com",
};

/**
 * A hosted service's settings from the add form (Confluence, Notion, Google Drive, SharePoint): `get` reads a field
 * trimmed, `raw` as typed (secrets and key files).
 */
export function hostedBody(kind: SourceKind, get: (name: string) => string, raw: (name: string) => string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (kind === "confluence") {
    const deployment = get("deployment") || "cloud";
    Object.assign(body, {
      deployment,
      spaces: get("spaces")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean),
    });
    // Data Center's personal access token goes alone; Cloud's API token with the account's e-mail.
    if (deployment === "cloud") body.username = get("username");
  }
  if (kind === "confluence" || kind === "notion") body.token = raw("token").trim();
  if (kind === "google-drive") {
    body.folders = get("folders")
      .split(/[\s,]+/)
      .filter(Boolean);
    body.serviceAccount = raw("serviceAccount");
    if (get("subject")) body.subject = get("subject");
  }
  if (kind === "sharepoint") {
    Object.assign(body, { driveId: get("driveId"), folder: get("folder"), tenantId: get("tenantId"), clientId: get("clientId") });
    body.clientSecret = raw("clientSecret");
    if (get("loginUrl")) body.loginUrl = get("loginUrl");
  }
  if (HOSTED_APIS.includes(kind) && get("apiUrl")) body.apiUrl = get("apiUrl");
  return body;
}

/** The add form's fields for a hosted service's source (none for the other kinds). */
export function HostedFields({ t, kind }: { t: SourceMessages; kind: SourceKind }) {
  return (
    <>
      {kind === "confluence" && <ConfluenceFields t={t} />}
      {kind === "notion" && (
        <Field label={t.integrationToken}>
          <input name="token" data-testid="source-token" type="password" required autoComplete="off" className={inputClass} />
        </Field>
      )}
      {kind === "google-drive" && (
        <>
          <Field label={t.driveFolders}>
            <input
              name="folders"
              data-testid="source-folders"
              required
              className={inputClass}
              placeholder="https://drive.google.com/drive/folders/…"
            />
          </Field>
          <Field label={t.driveSubject}>
            <input name="subject" type="email" autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.serviceAccount}>
            <textarea
              name="serviceAccount"
              data-testid="source-service-account"
              required
              rows={3}
              autoComplete="off"
              className={inputClass}
            />
          </Field>
        </>
      )}
      {kind === "sharepoint" && (
        <>
          <Field label={t.driveId}>
            <input name="driveId" data-testid="source-drive-id" required autoComplete="off" className={inputClass} placeholder="b!…" />
          </Field>
          <Field label={t.driveFolder}>
            <input name="folder" data-testid="source-drive-folder" className={inputClass} />
          </Field>
          <Field label={t.tenantId}>
            <input name="tenantId" required autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.clientId}>
            <input name="clientId" required autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.clientSecret}>
            <input name="clientSecret" type="password" required autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.loginUrl}>
            <input name="loginUrl" className={inputClass} placeholder="https://login.microsoftonline.com" />
          </Field>
        </>
      )}
      {HOSTED_APIS.includes(kind) && (
        <Field label={t.apiUrl}>
          <input name="apiUrl" data-testid="source-api-url" className={inputClass} placeholder={API_PLACEHOLDER[kind]} />
        </Field>
      )}
    </>
  );
}

/** Confluence's fields: Cloud asks for the account's e-mail and an API token, Data Center for a personal access token. */
function ConfluenceFields({ t }: { t: SourceMessages }) {
  const [deployment, setDeployment] = useState("cloud");
  return (
    <>
      <Field label={t.confluenceDeployment}>
        <select
          name="deployment"
          data-testid="source-confluence-deployment"
          value={deployment}
          onChange={(e) => setDeployment(e.target.value)}
          className={inputClass}
        >
          <option value="cloud">{t.confluenceCloud}</option>
          <option value="data-center">{t.confluenceDataCenter}</option>
        </select>
      </Field>
      <Field label={t.spaces}>
        <input name="spaces" data-testid="source-spaces" required className={inputClass} placeholder="ENG, HR" />
      </Field>
      {deployment === "cloud" && (
        <Field label={t.email}>
          <input name="username" data-testid="source-username" type="email" required autoComplete="off" className={inputClass} />
        </Field>
      )}
      <Field label={deployment === "cloud" ? t.apiToken : t.personalAccessToken}>
        <input name="token" data-testid="source-token" type="password" required autoComplete="off" className={inputClass} />
      </Field>
    </>
  );
}
