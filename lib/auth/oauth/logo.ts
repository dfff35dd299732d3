/**
 * The client logo the consent page shows: only one carried inline as a data: image (PNG, JPEG, GIF or WebP,
 * base64, at most LOGO_MAX_CHARS), so opening the page makes no request anywhere. A logo_uri on the web
 * (http or https) is not shown: fetching it from the browser would tell the client's owner who opened the
 * page, and the page's Content-Security-Policy (img-src 'self' data:) would refuse it anyway.
 */
export const LOGO_MAX_CHARS = 8_000;

const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

export function consentLogo(logoUri: string | undefined): string | null {
  return logoUri && logoUri.length <= LOGO_MAX_CHARS && DATA_IMAGE.test(logoUri) ? logoUri : null;
}
