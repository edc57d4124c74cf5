// kubectl-cascade as a user runs it: its bin, the shell script
// cli/kubectl-cascade, in a process of its own, against the test cluster as
// admin, without a terminal. CLI_ENTRY is the Node.js entry the bin falls
// back to.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../local/cluster/paths.ts';
import { adminKubeconfigPath } from './kube.ts';

export const CLI_BIN = join(repoRoot, 'cli/kubectl-cascade');
export const CLI_ENTRY = join(repoRoot, 'cli/kubectl-cascade.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kubectl-cascade --kubeconfig <admin> [-n namespace] ...args`; never throws on a non-zero exit. */
export function cli(
  args: string[],
  opts: { namespace?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const ns = opts.namespace ? ['-n', opts.namespace] : [];
  return new Promise((resolve) => {
    execFile(
      CLI_BIN,
      ['--kubeconfig', adminKubeconfigPath(), ...ns, ...args],
      {
        env: { ...process.env, NO_COLOR: '', ...opts.env },
        timeout: 110_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
