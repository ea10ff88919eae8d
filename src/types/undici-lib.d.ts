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
declare module 'undici/lib/api/api-connect.js' {
  const connect: (...args: unknown[]) => unknown;
  export default connect;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool as UndiciPool } from 'undici';
  const Pool: typeof UndiciPool;
  export default Pool;
}
