// Set-up of every cluster test file (vitest.config.ts): the temporary
// directories it made (local/temp-dir.ts) are removed after its last test,
// once its own after-hooks have stopped the processes that read them.
import { afterAll } from 'vitest';
import { removeTempDirs } from '../../local/temp-dir.ts';

afterAll(() => removeTempDirs());
