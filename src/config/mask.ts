/** Secrets as people may see them: never the value, at most its last four characters. */
export function maskSecret(value: string | undefined): string {
  if (!value) return '';
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}
