import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// https://vite.dev/config/ ; preserveSymlinks: react18/src links to this app's src, and must get React 18.
export default defineConfig({
  plugins: [react()],
  resolve: { preserveSymlinks: true },
});
