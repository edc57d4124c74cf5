// Each command's line in `kubectl cascade --help`: its term, as commander
// prints it, and its description. The top-level help is drawn from this
// table alone, so it loads no command. Each command takes its description
// from here; program.test.ts checks that both helps print the same.

export interface CommandLine {
  /** The command's name, its alias, `[options]` and its arguments, as the help lists it. */
  term: string;
  description: string;
}

const CONTROL_END = 'exits 0 once the run shows it, 1 when it changed nothing or was not handled in time';

export const COMMAND_LINES = {
  submit: { term: 'submit [options]', description: "start a run (the public run request); prints the run's name" },
  list: {
    term: 'list|ls [options]',
    description: 'list runs as a table (name, scenario, phase, step i/N, age, duration), newest first',
  },
  get: {
    term: 'get [options] <run>',
    description: 'show a run and one row per module (Job, phase, started, duration, result, reason, attempts)',
  },
  watch: {
    term: 'watch <run>',
    description:
      'follow a run until it ends, one line per module with its state and elapsed time; exits 0 if it succeeded, 2 if it failed, 3 if it was cancelled, 130 on Ctrl-C',
  },
  logs: {
    term: 'logs [options] <run>',
    description: "print the pod logs of each module's Job in order, each line prefixed with its module",
  },
  cancel: {
    term: 'cancel [options] <run>',
    description: `cancel a run: its current Job is stopped and it ends Cancelled; ${CONTROL_END}`,
  },
  resume: {
    term: 'resume [options] <run>',
    description: `resume a Failed or Cancelled run from the module where it stopped; ${CONTROL_END}`,
  },
  lint: {
    term: 'lint [options] <file...>',
    description:
      "validate scenarios as the function would, then dry-run each CascadeAutoOperator and each module's Job on the API server",
  },
  version: {
    term: 'version [options]',
    description: "print the CLI's version and the API server's, as kubectl version does",
  },
  delete: {
    term: 'delete [options] [runs...]',
    description: 'delete finished runs and their Jobs, as the janitor does past retention; an active run is refused',
  },
  completion: {
    term: 'completion <shell>',
    description: 'print the completion script of bash, zsh or fish; kubectl completes `kubectl cascade` itself',
  },
  ui: {
    term: 'ui [options]',
    description: 'a live web view of the runs, served on this machine with your kubeconfig (Ctrl-C stops it)',
  },
} as const satisfies Record<string, CommandLine>;

export type CommandName = keyof typeof COMMAND_LINES;
