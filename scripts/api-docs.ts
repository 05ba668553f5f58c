/** Rewrites docs/api.md from the contract (`npm run docs:api`). */
import fs from 'node:fs';
import { apiMarkdown } from '../src/contract/markdown.js';
import { operations, webhooks } from '../src/contract/index.js';

fs.writeFileSync(new URL('../docs/api.md', import.meta.url), apiMarkdown(operations, webhooks));
console.log(`docs/api.md: ${operations.filter((o) => !o.hidden).length} operations, ${webhooks.length} webhook(s)`);
