import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { foldersClosedToOthers } from './embedded-postgres';

describe('foldersClosedToOthers', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'closed-folders-'));
    chmodSync(root, 0o755);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names each folder on the way that other users cannot enter, a 700 one like /root or a mktemp -d', () => {
    const closed = path.join(root, 'private');
    const target = path.join(closed, 'clone', 'node_modules');
    mkdirSync(target, { recursive: true });
    chmodSync(closed, 0o700);
    expect(foldersClosedToOthers(target).filter((folder) => folder.startsWith(root))).toEqual([closed]);
  });

  it('names none when every folder lets others through', () => {
    const target = path.join(root, 'open', 'clone');
    mkdirSync(target, { recursive: true });
    expect(foldersClosedToOthers(target).filter((folder) => folder.startsWith(root))).toEqual([]);
  });
});
