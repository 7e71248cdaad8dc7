import { Foundation1763769600000 } from './1763769600000-foundation';
import { RecordsCore1763773200000 } from './1763773200000-records-core';

/** Every migration, in order. Listed explicitly so the app, jest and the CLI load the same set. */
export const MIGRATIONS = [Foundation1763769600000, RecordsCore1763773200000];
