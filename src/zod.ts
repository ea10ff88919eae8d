/**
 * The schema library for responses and the config file is zod/mini (a small fraction of
 * zod's start-up cost, see `npm run bench`). Importing this module gives it zod's English
 * messages. Modules import `* as z from 'zod/mini'` themselves, so the bundle keeps only
 * the parts they use.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
