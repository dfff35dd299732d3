import { describe, expect, it } from "vitest";
import { consentLogo, LOGO_MAX_CHARS } from "./logo";

describe("the consent page's client logo", () => {
  it("is shown only as an inline data: image", () => {
    const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";
    expect(consentLogo(png)).toBe(png);
    expect(consentLogo("https://client.example/logo.png")).toBeNull();
    expect(consentLogo("http://127.0.0.1:9/logo.png")).toBeNull();
    expect(consentLogo("data:image/svg+xml;base64,PHN2Zy8+")).toBeNull();
    expect(consentLogo('data:image/png;base64,AAAA" onerror="x')).toBeNull();
    expect(consentLogo(`data:image/png;base64,${"A".repeat(LOGO_MAX_CHARS)}`)).toBeNull();
    expect(consentLogo(undefined)).toBeNull();
  });
});
