import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  try {
    await (globalThis as { stopTestDatabase?: () => Promise<void> }).stopTestDatabase?.();
  } finally {
    const folder = process.env.RECORDS_TEST_RUN_FOLDER;
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}
