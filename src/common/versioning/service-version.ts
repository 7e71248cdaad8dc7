/** The one interface version this service speaks (spec: Versioning). */
export const SERVICE_VERSION = '2026-03-01';
export const SERVICE_VERSION_HEADER = 'service-version';
