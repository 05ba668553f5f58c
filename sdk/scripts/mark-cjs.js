// Build step of @blueline/sdk: dist/cjs holds the CommonJS build (tsconfig.cjs.json); its own
// package.json tells Node and TypeScript that the .js and .d.ts files there are CommonJS (the
// package itself is "type": "module").
import fs from 'node:fs';

fs.writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
