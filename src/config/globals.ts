/** --timeout when it is not given: each request's time limit, in seconds (program.ts; printed commands leave it out). */
export const DEFAULT_TIMEOUT_S = 30;

/** The global options of one run (flags and environment), read once at the entry. */
export interface GlobalOptions {
  profile: string;
  /** The profile was chosen for this run (--profile or PAYCTL_PROFILE), not the default one. */
  profileChosen: boolean;
  /** Set when --base-url was given on the command line. */
  baseUrl: string | undefined;
  json: boolean;
  noInput: boolean;
  verbose: boolean;
  timeoutMs: number;
}
