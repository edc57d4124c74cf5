// A bearer token kept in a file: read again once a minute, as a projected
// ServiceAccount token rotates.
import { readFileSync } from 'node:fs';

export function fileToken(path: string): () => string {
  let value = '';
  let readAt = 0;
  return () => {
    if (Date.now() - readAt > 60_000) {
      value = readFileSync(path, 'utf8').trim();
      readAt = Date.now();
    }
    return value;
  };
}
