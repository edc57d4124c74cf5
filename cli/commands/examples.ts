// The Examples section of each command's --help, as kubectl's help ends with one.

export const EXAMPLES: Record<string, readonly string[]> = {
  '': [
    'kubectl cascade submit --iuid 33e65374 --turlinfo s3://in/x.tgz --watch',
    'kubectl cascade list -A',
    'kubectl cascade get RUN',
  ],
  submit: [
    "# start a run of the function's scenario and follow it to its end",
    'kubectl cascade submit -n cascade-operator --iuid 33e65374 --turlinfo s3://in/x.tgz --watch',
    '# through a port-forward, with another scenario',
    'kubectl cascade submit --url http://localhost:8080 --iuid 33e65374 --turlinfo s3://in/x.tgz --scenario slow',
  ],
  list: [
    'kubectl cascade list',
    'kubectl cascade list -A --phase Failed',
    'kubectl cascade list -l app=Cascade -o name',
    'kubectl cascade list -o wide',
    'kubectl cascade list --since 1h --limit 20',
    'kubectl cascade list -w',
    'kubectl cascade list -o jsonpath=\'{range .items[*]}{.metadata.name}{"\\n"}{end}\'',
  ],
  get: [
    'kubectl cascade get RUN',
    'kubectl cascade get RUN -o yaml',
    "kubectl cascade get RUN -o jsonpath='{.status.phase}'",
  ],
  watch: ['kubectl cascade watch RUN; echo "exit $?"   # 0 succeeded, 2 failed, 3 cancelled, 130 Ctrl-C'],
  logs: [
    'kubectl cascade logs RUN',
    'kubectl cascade logs RUN --module grayscale -f',
    'kubectl cascade logs RUN --since 10m --tail 20',
  ],
  cancel: ['kubectl cascade cancel RUN', 'kubectl cascade cancel RUN --url http://localhost:8080 --timeout 2m'],
  resume: ['kubectl cascade resume RUN', 'kubectl cascade resume RUN --timeout 30s'],
  lint: [
    'kubectl cascade lint scenario.yaml',
    'kubectl cascade lint -n cascade-operator cao.yaml scenarios/',
    'cat cao.yaml | kubectl cascade lint --offline -',
  ],
  delete: ['kubectl cascade delete RUN', 'kubectl cascade delete --all --phase Succeeded'],
  version: ['kubectl cascade version', 'kubectl cascade version --client'],
  completion: [
    'source <(kubectl-cascade completion bash)',
    'source <(kubectl-cascade completion zsh)',
    'kubectl-cascade completion fish | source',
  ],
  ui: ['kubectl cascade ui --open', 'kubectl cascade ui -A --port 0'],
};

/** The text after a command's help: `Examples:` and its lines, indented. */
export function examplesText(command: string): string {
  const lines = EXAMPLES[command] ?? [];
  return lines.length === 0 ? '' : `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
