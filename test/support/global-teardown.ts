export default async function globalTeardown(): Promise<void> {
  await (globalThis as { stopTestDatabase?: () => Promise<void> }).stopTestDatabase?.();
}
