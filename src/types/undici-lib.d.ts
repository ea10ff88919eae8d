// Types for the undici modules payctl loads directly (see src/api/http.ts).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const Agent: typeof EnvHttpProxyAgent;
  export default Agent;
}
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent as UndiciAgent } from 'undici';
  const Agent: typeof UndiciAgent;
  export default Agent;
}
