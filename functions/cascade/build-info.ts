// The build's identity for /healthz (the Go controller's tag, hash and date):
// from BUILD_TAG / BUILD_HASH / BUILD_DATE set by the image build, else from
// build/build-info.json that `npm run build` writes (read by the compiled
// function in build/), else "dev".
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  tag: string;
  hash: string;
  date: string;
}

function fromFile(): Partial<BuildInfo> {
  try {
    return JSON.parse(readFileSync(new URL('../../build-info.json', import.meta.url), 'utf8')) as Partial<BuildInfo>;
  } catch {
    return {};
  }
}

export function buildInfo(env: NodeJS.ProcessEnv): BuildInfo {
  const file = fromFile();
  return {
    tag: env.BUILD_TAG || file.tag || 'dev',
    hash: env.BUILD_HASH || file.hash || 'unknown',
    date: env.BUILD_DATE || file.date || 'unknown',
  };
}
