/** `payctl webhooks listen` (the run is listen.ts). */
import { intOption, nonEmpty, type CommandSpec } from '../spec.js';

export const listenSpec: CommandSpec = {
  name: 'listen',
  summary: 'receive webhook events locally: verify, print, and optionally forward them',
  options: [
    { flags: '--port <n>', description: 'port to listen on (0 picks a free one)', parse: intOption('--port', 0, 65535), default: 4242 },
    { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
    { flags: '--path <path>', description: 'path events are posted to', default: '/webhooks' },
    { flags: '--secret-stdin', description: 'read the webhook secret from the first line of standard input' },
    { flags: '--secret <secret>', description: 'webhook secret (visible to other users in ps: prefer --secret-stdin or PAYCTL_WEBHOOK_SECRET)' },
    {
      flags: '--signature-header <name>',
      description: "header that carries the signature (default: the profile's webhook-signature-header, else Signature)",
    },
    {
      flags: '--tolerance <seconds>',
      description: "how far an event's timestamp may be from this machine's clock (default 300)",
      parse: intOption('--tolerance', 1, 86400),
    },
    {
      flags: '--forward-to <url>',
      description: 'forward each accepted event (verified, with a secret), raw body and headers, to this URL',
      parse: nonEmpty('--forward-to'),
    },
  ],
  help:
    'Events are {event, timestamp, webhook_id, attempt, data}, signed with 64 hex characters of\n' +
    'HMAC-SHA256(secret, raw body) in the Signature header (a sha256= prefix is accepted).\n' +
    "The secret comes from --secret-stdin (or --secret), else PAYCTL_WEBHOOK_SECRET, else the profile's\n" +
    'webhook-secret. With a secret, stdout carries verified events only: a delivery with a missing,\n' +
    'malformed or wrong signature, or a timestamp more than --tolerance seconds off, is answered 400\n' +
    'naming the check, reported on stderr (a JSON line with --json) and never forwarded. Without one,\n' +
    'nothing is verified: every event, a forged one too, is printed and answered 200 (or forwarded)\n' +
    '("verified": null with --json, true for a verified event). A webhook_id seen before is a\n' +
    'retry: answered as usual and marked as a duplicate with its attempt.\n' +
    'With --forward-to, the raw body and headers go to your app, whose status and body are passed back.\n' +
    'The sender is answered within --timeout: 502 when the app has not answered by then; a 2xx the app\n' +
    'gives later (up to 10 minutes) still counts, so the retry is answered with it, not forwarded again.\n' +
    'Requests must be for localhost, 127.x.y.z, [::1] or the --host address, with a JSON body.\n' +
    'Ctrl-C stops it (exit 130).',
  examples: [
    'printf %s "$WEBHOOK_SECRET" | payctl webhooks listen --secret-stdin',
    'payctl webhooks listen --forward-to http://localhost:3000/webhooks --signature-header X-Bokumonie-Signature',
    'payctl sandbox start --webhook-url http://127.0.0.1:4242/webhooks   # in another terminal',
  ],
  load: () => import('./listen.js'),
};
