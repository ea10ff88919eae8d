/**
 * Runs before every test file: what the entry (cli.ts) says once per run, said for the
 * tests that call modules below it directly: who the user is (config/paths.ts refuses
 * folders of other users).
 */
import { runningAs } from '../../src/config/paths.js';

runningAs(process.getuid?.());
