/** Passwords: at least this long (NIST SP 800-63B), at most this long. Browser-safe (the forms use them too). */
export const MIN_PASSWORD_CHARS = 10;
export const MAX_PASSWORD_CHARS = 256;
