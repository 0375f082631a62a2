/**
 * The earlier contract's deprecation (RFC 9745) and sunset (RFC 8594). Constants rather than config: the
 * sunset date is a promise made to integrators, the same on every deployment and in docs/api.md.
 */

/** Deprecated since this compatibility layer shipped: /v1 superseded the earlier contract before it. */
export const LEGACY_DEPRECATED_AT = new Date('2026-11-23T00:00:00Z');

/** From this instant on both earlier routes answer 410 `endpoint_sunset`. */
export const LEGACY_SUNSET_AT = new Date('2027-06-30T00:00:00Z');

export function isSunset(now: Date): boolean {
  return now.getTime() >= LEGACY_SUNSET_AT.getTime();
}

/**
 * The Link header of an earlier route's answer: the page documenting the deprecation, and the current
 * route that replaces it when there is one to name (the GET knows it only once the QR is the caller's).
 */
export function legacyLinkHeader(publicBaseUrl: string, successor?: string): string {
  const links = [`<${publicBaseUrl}/docs>; rel="deprecation"`];
  if (successor !== undefined) links.unshift(`<${publicBaseUrl}${successor}>; rel="successor-version"`);
  return links.join(', ');
}

/** Headers of every answer of an earlier route, errors included. */
export function deprecationHeaders(link: string): Record<string, string> {
  return {
    // RFC 9745: a Structured Field Date, "@" and Unix seconds.
    Deprecation: `@${Math.floor(LEGACY_DEPRECATED_AT.getTime() / 1000)}`,
    // RFC 8594: an HTTP-date.
    Sunset: LEGACY_SUNSET_AT.toUTCString(),
    Link: link,
  };
}
