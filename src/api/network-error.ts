/**
 * What a failed exchange says (client.ts): undici's error as a NetworkError naming the host, or
 * the proxy when the request never got through it (http.ts ProxyError): a proxy that refuses,
 * drops or answers CONNECT with an error was said to be the service ("Could not connect to
 * api.example.com … Is the service running?") when only the proxy had been contacted. And a
 * retried read's last timeout with its attempts (triedFor).
 */
import { NetworkError, networkFault } from '../errors.js';
import { sanitize, sanitizeInline } from '../output/sanitize.js';
import { ProxyError, type Tunnels } from './http.js';

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

const PROXY_HINT = 'Check HTTPS_PROXY and HTTP_PROXY (the proxy payctl sends through) and NO_PROXY (the hosts reached without it), or unset them.';

/**
 * A request that had not started at the deadline: still waiting for its connection, so nothing
 * was sent. Behind a proxy (`via`), the proxy is blamed only while a CONNECT to the host is
 * unanswered: once every tunnel is open (CONNECT 200), what is left is the service's TLS handshake.
 */
export function notConnectedError(url: string, timeoutMs: number, via: Tunnels | undefined): NetworkError {
  const host = hostOf(url);
  const causeCode = 'UND_ERR_CONNECT_TIMEOUT';
  if (!via) return toNetworkError({ code: causeCode }, url, timeoutMs);
  if (via.opening === 0) {
    return new NetworkError(
      `Connecting to ${host} through the proxy ${via.proxy} timed out after ${seconds(timeoutMs)}: the proxy opened the tunnel, ${host} did not complete the connection; nothing was sent.`,
      { causeCode, hint: 'Check that the service is up and reachable from the proxy, or raise --timeout.' },
    );
  }
  return new NetworkError(`The proxy ${via.proxy} did not open a tunnel to ${host} within ${seconds(timeoutMs)}; nothing was sent.`, {
    causeCode,
    hint: PROXY_HINT,
  });
}

/** A tunnel that could not be opened: the proxy named (host:port, never its credentials), the service not blamed. */
function proxyError(err: ProxyError, host: string, timeoutMs: number): NetworkError {
  const cause = err.cause as { code?: string; message?: string; reason?: string } | undefined;
  const code = cause?.code;
  const none = `nothing was sent to ${host}`;
  const p = `the proxy ${err.proxy}`;
  let hint = PROXY_HINT;
  let message: string;
  if (err.status !== undefined) {
    message = `The proxy ${err.proxy} refused to open a tunnel to ${host} (it answered HTTP ${err.status}); nothing was sent.`;
    if (err.status === 407) hint = `The proxy asks for credentials: give them in its URL (http://user:password@host:port). ${PROXY_HINT}`;
    return new NetworkError(message, { causeCode: code ?? err.code, hint });
  }
  switch (networkFault(code)) {
    case 'refused':
      message = `Could not connect to ${p}: connection refused; ${none}.`;
      break;
    case 'host':
      message = `Could not resolve the host of ${p}; ${none}.`;
      break;
    case 'connect-timeout':
      message = `Connecting to ${p} timed out after ${seconds(timeoutMs)}; ${none}.`;
      break;
    case 'answer-timeout':
      message = `The proxy ${err.proxy} did not open a tunnel to ${host} within ${seconds(timeoutMs)}; nothing was sent.`;
      break;
    case 'reset':
      message = `The proxy ${err.proxy} closed the connection before opening a tunnel to ${host}; nothing was sent.`;
      break;
    case 'certificate':
      message = `The certificate of ${p} was not accepted (${sanitize(cause?.message ?? code ?? '')}); ${none}.`;
      break;
    case 'handshake':
      // OpenSSL's text (with a line break inside) said to a person as its reason alone, on one line.
      message = `The TLS handshake with ${p} failed (${sanitizeInline(cause?.reason ?? cause?.message ?? code ?? '').trim()}); ${none}.`;
      hint = `The proxy may speak plain HTTP: write its URL with http://, not https://. ${PROXY_HINT}`;
      break;
    default:
      message = `Network error talking to ${p}: ${sanitizeInline(cause?.message ?? String(err.cause)).trim()}; ${none}.`;
  }
  return new NetworkError(message, { causeCode: code ?? err.code, hint });
}

/** undici's error for a request to `url` as a NetworkError said to a person. */
export function toNetworkError(err: unknown, url: string, timeoutMs: number): NetworkError {
  const e = err as { code?: string; message?: string; reason?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  const host = hostOf(url);
  if (err instanceof ProxyError) return proxyError(err, host, timeoutMs);
  const secs = seconds(timeoutMs);
  switch (networkFault(code)) {
    case 'refused':
      return new NetworkError(`Could not connect to ${host}: connection refused.`, {
        causeCode: code,
        hint: 'Is the service (or `payctl sandbox start`) running at this base URL?',
      });
    case 'host':
      return new NetworkError(`Could not resolve the host ${host}.`, { causeCode: code, hint: 'Check the base URL and your network.' });
    case 'connect-timeout':
      return new NetworkError(`Connecting to ${host} timed out after ${secs}.`, { causeCode: code, hint: 'Check your network, or raise --timeout.' });
    case 'answer-timeout':
      return new NetworkError(`No answer from ${host} within ${secs}.`, { causeCode: code, hint: 'Try again, or raise --timeout.' });
    case 'reset':
      return new NetworkError(`The connection to ${host} was closed before an answer arrived.`, { causeCode: code, hint: 'Try again.' });
    case 'certificate':
      // The handshake failed, so no request went to that server.
      return new NetworkError(`The certificate of ${host} was not accepted (${sanitize(e?.message ?? code ?? '')}); nothing was sent to it.`, {
        causeCode: code,
        hint: 'payctl checks certificates whatever NODE_TLS_REJECT_UNAUTHORIZED says. If your network inspects TLS with a CA of its own, trust it with NODE_EXTRA_CA_CERTS=/path/to/ca.pem.',
      });
    case 'handshake':
      // No TLS server answered (a plain HTTP server behind an https:// URL says "wrong version number"): nothing was sent.
      return new NetworkError(`The TLS handshake with ${host} failed (${sanitizeInline(e?.reason ?? e?.message ?? code ?? '').trim()}); nothing was sent to it.`, {
        causeCode: code,
        hint: "Check that the base URL names the service's HTTPS address and port (a local sandbox is reached with http://).",
      });
    default:
      return new NetworkError(`Network error talking to ${host}: ${sanitize(e?.message ?? String(err))}.`, { causeCode: code });
  }
}

/**
 * The last attempt's timeout of a read client.ts retried, said with the attempts and the time
 * they took in all: "No answer from 127.0.0.1:47821 within 3 s, 4 attempts over 13 s." Before,
 * the per-attempt limit alone was said after about 13 s (2 minutes with the default --timeout
 * 30). Any other failure is returned as it is.
 */
export function triedFor(err: NetworkError, attempts: number, spentMs: number): NetworkError {
  // Only an attempt that ran out of --timeout (each attempt's own limit).
  const fault = networkFault(err.causeCode);
  if (attempts < 2 || err.causeCode === undefined || (fault !== 'connect-timeout' && fault !== 'answer-timeout')) return err;
  const s = Math.round(spentMs / 1000);
  const over = `${attempts} attempts over ${s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`}`;
  const message = / s\.$/.test(err.message) ? err.message.replace(/\.$/, `, ${over}.`) : `${err.message} (${over}.)`;
  return new NetworkError(message, { causeCode: err.causeCode, ...(err.hint !== undefined ? { hint: err.hint } : {}) });
}
