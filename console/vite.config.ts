import { defineConfig } from 'vite';

// Served by the service at /console; no inline scripts (the service's CSP forbids them).
export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8787', '/admin': 'http://127.0.0.1:8787' } },
});
