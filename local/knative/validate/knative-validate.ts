// Knative Serving's own validation of Knative Services: what Serving's
// admission webhook would answer, with its default feature flags, for the
// Services in some YAML. The validator is main.go beside this file, built by
// build.sh from the Go module proxy into the cache beside the local control plane.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../../build-script.ts';

export const knativeValidateBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

/** What Knative Serving says of one Service: its errors (refused) and warnings, each "" when none. */
export interface ServiceVerdict {
  name: string;
  errors: string;
  warnings: string;
}

/** Builds the validator when it is not cached (progress on our stderr) and resolves to its path. */
export function ensureKnativeValidate(): Promise<string> {
  return runBuildScript(knativeValidateBuildScript, 'knative-validate');
}

/** The verdict on every serving.knative.dev/v1 Service among the YAML documents (`---`-separated). */
export function validateServices(bin: string, yaml: string): Promise<ServiceVerdict[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(bin, [], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`knative-validate failed: ${error.message}\n${stderr}`));
      resolve(
        stdout
          .trim()
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as ServiceVerdict),
      );
    });
    child.stdin?.end(yaml.startsWith('---\n') ? yaml : `---\n${yaml}`);
  });
}
