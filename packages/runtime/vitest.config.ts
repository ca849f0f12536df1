import { defineConfig } from "vitest/config";

// the parity test trains two tiny models with the Python engine first; the machine may be shared
export default defineConfig({ test: { testTimeout: 240_000, hookTimeout: 240_000 } });
