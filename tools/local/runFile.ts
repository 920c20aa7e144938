import { join } from 'node:path';
import { projectRoot } from '../emulator/paths.js';

/** Where `npm start` records the running service for `npm run send`, `inbox` and `dlq`. */
export const LOCAL_RUN_FILE = join(projectRoot, '.cache', 'local-run.json');
