/**
 * `payctl login`: verifies an API key live (a token is fetched with it) and only then
 * saves base URL, key, token and expiry in the profile. Key from --api-key-stdin,
 * else PAYCTL_API_KEY, else a hidden prompt; base URL from --base-url, else
 * PAYCTL_BASE_URL, else the profile, else a prompt.
 */
import { write, type Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { checkBaseUrl } from '../config/resolve.js';
import { maskSecret } from '../config/mask.js';
import { tokenExpiry } from '../api/client.js';
import { utcTime } from '../output/text.js';

export interface LoginOptions {
  apiKeyStdin?: boolean;
}

/** The first line of a stream (the rest is not read). */
export async function readFirstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let buf = '';
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    buf += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const nl = buf.indexOf('\n');
    if (nl >= 0) return buf.slice(0, nl).replace(/\r$/, '');
  }
  return buf.replace(/\r$/, '');
}

function checkUrlInput(value: string): true | string {
  try {
    checkBaseUrl(value.trim());
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}

export async function run(opts: LoginOptions, deps: Deps): Promise<number> {
  const { globals, env, io } = deps;
  const store = deps.config();
  const profile = store.getProfile(globals.profile);

  let baseUrl = globals.baseUrl ?? (env.PAYCTL_BASE_URL || undefined) ?? profile?.baseUrl;
  if (!baseUrl) {
    if (!io.interactive) {
      throw new UsageError('No base URL to log in to.', [], 'Pass --base-url https://…/v2 or set PAYCTL_BASE_URL.');
    }
    baseUrl = (await (await deps.prompter()).input({ message: 'Base URL (ends in /v2):', validate: checkUrlInput })).trim();
  }
  baseUrl = checkBaseUrl(baseUrl);

  let apiKey: string | undefined;
  let keySource: string;
  if (opts.apiKeyStdin) {
    apiKey = (await readFirstLine(io.stdin)).trim();
    keySource = 'standard input';
  } else if (env.PAYCTL_API_KEY) {
    apiKey = env.PAYCTL_API_KEY.trim();
    keySource = 'PAYCTL_API_KEY';
  } else if (io.interactive) {
    apiKey = (
      await (await deps.prompter()).password({
        message: 'API key:',
        validate: (v) => (v.trim() ? true : 'The API key cannot be empty.'),
      })
    ).trim();
    keySource = 'prompt';
  } else {
    throw new UsageError('No API key given.', [], 'Pipe it in with --api-key-stdin, or set PAYCTL_API_KEY.');
  }
  if (!apiKey) throw new UsageError(`The API key from ${keySource} is empty.`);

  // Verified live before anything is saved: a refused key throws AuthError (exit 3).
  const client = await deps.apiWith({ baseUrl, apiKey });
  const t = await client.fetchToken(apiKey);
  const expiresAt = tokenExpiry(t, deps.now());
  await store.updateProfile(globals.profile, {
    baseUrl,
    apiKey,
    token: t.token,
    tokenExpiresAt: expiresAt?.toISOString(),
  });

  if (globals.json) {
    await write(
      io.stdout,
      JSON.stringify({ profile: globals.profile, base_url: baseUrl, api_key: maskSecret(apiKey), token_expires_at: expiresAt?.toISOString() ?? null }) + '\n',
    );
  } else {
    deps.log.success(`Logged in to ${baseUrl} as profile "${globals.profile}" (key ${maskSecret(apiKey)}).`);
    if (expiresAt) deps.log.info(`Token valid until ${utcTime(expiresAt.toISOString())}; payctl renews it with the key.`);
  }
  return 0;
}
