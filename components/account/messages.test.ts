import { describe, expect, it } from "vitest";
import { signInErrorText, T } from "./messages";

describe("/signin?error=", () => {
  it("shows the message of a known code, and never the text of an unknown one", () => {
    expect(signInErrorText("sso_not_allowed", T.en)).toMatch(/may not join/);
    expect(signInErrorText("sso_account_exists", T.zh)).toBe(T.zh.sso_account_exists);
    expect(signInErrorText("Your account is locked: call +1 555 0100", T.en)).toBe(T.en.failed);
    expect(signInErrorText(null, T.en)).toBeNull();
  });
});
