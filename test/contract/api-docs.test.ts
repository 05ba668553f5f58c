import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiMarkdown } from '../../src/contract/markdown.js';
import { operations, webhooks } from '../../src/contract/index.js';

describe('docs/api.md', () => {
  it('is the reference the contract generates (run `npm run docs:api` after changing an operation)', () => {
    expect(fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')).toBe(apiMarkdown(operations, webhooks));
  });
});
