import { Foundation1763769600000 } from './1763769600000-foundation';

/** Every migration, in order. Listed explicitly so the app, jest and the CLI load the same set. */
export const MIGRATIONS = [Foundation1763769600000];
