/**
 * What to do about an API key the service refused (401) or did not allow (403), by where the key
 * came from: the one wording of every command's hint (api/client.ts), `login` and `status` alike.
 * A key from PAYCTL_API_KEY is sent again by any login run while it is set, so the hint says to
 * change or unset it (unset, the profile's own key is used when it holds one for this base URL:
 * then that is what the hint offers, not a login); one piped in with --api-key-stdin is asked
 * for the same way again.
 */

/** Where a key came from: the environment, the profile, standard input, or given otherwise (a prompt). */
export type KeySource = 'env' | 'profile' | 'stdin' | 'given';

/**
 * The hint for a refused key; `login` is the login command for these settings, as printed.
 * `stored`: for a key from PAYCTL_API_KEY, the key the run would send once it is unset
 * (`profile "sandbox"'s stored key (****7890)`), when the profile holds one for this base URL.
 */
export function refusedKeyHint(source: KeySource | undefined, login: string, forbidden: boolean, stored?: string): string {
  const why = `The key may be wrong or revoked${forbidden ? ', or not allowed this request' : ''}.`;
  switch (source) {
    case 'env':
      if (stored) return `PAYCTL_API_KEY was refused: set a valid key, or unset it to use ${stored}.`;
      // Run while it is set, the login would take the same key from the environment again.
      return `PAYCTL_API_KEY was refused: set a valid key, or unset it and run \`${login}\`.`;
    case 'stdin':
      return `${why} Pipe a valid key to \`${login} --api-key-stdin\`.`;
    default:
      return `${why} Run \`${login}\` with a valid key.`;
  }
}
