// Runs a short command to completion and fails with its output.
import { execFile } from 'node:child_process';

export function runCommand(
  file: string,
  args: readonly string[],
  options: { cwd?: string; input?: string } = {},
): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = execFile(file, args, { cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const detail = `${stderr}${stdout}`.trim().split('\n').slice(-20).join('\n');
        reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${detail}`));
      } else {
        resolveRun(stdout);
      }
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
