// Types for scripts/pg-bin.mjs (imported by test/helpers/postgres-cluster.ts).
export declare const POSTGRES_PROGRAMS: readonly string[];
/** The folder holding initdb, pg_ctl and postgres, or undefined when this machine has none. */
export declare function postgresBinDir(path?: string): string | undefined;
