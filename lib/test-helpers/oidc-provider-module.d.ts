// node-oidc-provider ships no types; the tests use only its constructor, `callback()` and the account hook.
declare module "oidc-provider";
