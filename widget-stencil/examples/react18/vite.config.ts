import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// https://vite.dev/config/ ; preserveSymlinks: src links to ../react19/src, whose imports must resolve here (React 18).
export default defineConfig({
  plugins: [react()],
  resolve: { preserveSymlinks: true },
});
