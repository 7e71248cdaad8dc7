/**
 * How URLs are compared by host (an account's `$website` with an email domain): the host in lower
 * case, without a trailing dot or a leading `www.`. hostKey and hostKeySql compute the same key.
 */
export function hostKey(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.+$/, '')
    .replace(/^www\./, '');
}

/**
 * The host key of the URL `url` (SQL text), as hostKey computes it from the authority's host
 * without user info or port; NULL when `url` is no URL.
 */
export function hostKeySql(url: string): string {
  const host = `substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)')`;
  return `regexp_replace(rtrim(lower(${host}), '.'), '^www[.]', '')`;
}
