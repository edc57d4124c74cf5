// Where a Job's time goes, component by component, from the API server's
// audit log (local/cluster/audit-policy.yaml): each component's writes on the
// Job and its pod, with the API server's own timestamps. A pod's name is its
// Job's and a random suffix. A create's audit line has no name, so the path
// starts at the pod's binding. The stages, for each Job of one namespace:
//
//   pod bound           the scheduler's binding of its pod
//   kwok's first write  kwok, standing in for the kubelet, takes the pod up
//   kwok's last write   the pod has ended
//   last Job status     the Job controller wrote SuccessCriteriaMet and Complete
//
// And how long the API server took to answer the function's writes on its
// critical path. A reply waits for the run's create. A step waits for the
// run's status and the next Job. The CascadeAutoOperator's status write is
// the window in which two replicas' writes cross and one meets a 409.
import { distribution, type Distribution } from './stats.ts';

interface AuditLine {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
}

export interface JobPathStages {
  /** Pod bound → kwok's first write of its status. */
  toKubelet: Distribution;
  /** kwok's first → last write of the pod's status. */
  podRun: Distribution;
  /** kwok's last write → the Job controller's last write of the Job's status. */
  toComplete: Distribution;
  /** Pod bound → the Job controller's last write of the Job's status. */
  whole: Distribution;
  /** The API server's time to answer the function's writes, in ms, by kind; refusals included. */
  answerMs: Record<Answered, Distribution>;
}

/** The function's writes whose answer time is told. */
export const ANSWERED = ['run-create', 'run-status', 'job-create', 'operator-status'] as const;
export type Answered = (typeof ANSWERED)[number];

interface Times {
  lastJob?: number;
  bound?: number;
  kwokFirst?: number;
  kwokLast?: number;
}

const jobOfPod = (pod: string) => pod.slice(0, pod.lastIndexOf('-'));

function parsed(text: string): AuditLine | undefined {
  try {
    return JSON.parse(text) as AuditLine;
  } catch {
    return undefined;
  }
}

type Write = 'job-status' | 'bound' | 'kwok' | Answered;

const WRITES: { write: Write; resource: string; subresource: string; user?: string; verb?: string }[] = [
  { write: 'job-status', resource: 'jobs', subresource: 'status', user: 'job-controller' },
  { write: 'bound', resource: 'pods', subresource: 'binding' },
  { write: 'kwok', resource: 'pods', subresource: 'status', user: 'kwok' },
  { write: 'operator-status', resource: 'cascadeautooperators', subresource: 'status', verb: 'update' },
  { write: 'run-status', resource: 'cascaderuns', subresource: 'status', verb: 'update' },
  { write: 'run-create', resource: 'cascaderuns', subresource: '', verb: 'create' },
  { write: 'job-create', resource: 'jobs', subresource: '', verb: 'create', user: 'cascade-function' },
];

/** Which write of the path a line is, if any. */
function writeOf(line: AuditLine): Write | undefined {
  const ref = line.objectRef ?? {};
  const user = line.user?.username ?? '';
  const match = (w: (typeof WRITES)[number]) =>
    w.resource === ref.resource &&
    w.subresource === (ref.subresource ?? '') &&
    (!w.user || user.includes(w.user)) &&
    (!w.verb || w.verb === line.verb);
  return WRITES.find(match)?.write;
}

/** Records a Job's or its pod's write at `at`, by Job name. */
function note(jobs: Map<string, Times>, write: Write, name: string, at: number): void {
  const job = write === 'job-status' ? name : jobOfPod(name);
  let t = jobs.get(job);
  if (!t) jobs.set(job, (t = {}));
  if (write === 'job-status') t.lastJob = at;
  else if (write === 'bound') t.bound ??= at;
  else {
    t.kwokFirst ??= at;
    t.kwokLast = at;
  }
}

const spans = (jobs: Iterable<Times>, from: keyof Times, to: keyof Times) =>
  distribution([...jobs].flatMap((t) => (t[from] !== undefined && t[to] !== undefined ? [t[to] - t[from]] : [])));

const isAnswered = (write: Write | undefined): write is Answered =>
  (ANSWERED as readonly string[]).includes(write ?? '');

/** One line of the namespace: a write of a Job's path, or a function's write and its answer time. */
function take(line: AuditLine, jobs: Map<string, Times>, answers: Map<Answered, number[]>): void {
  const write = writeOf(line);
  const answered = Date.parse(line.stageTimestamp ?? '');
  const name = line.objectRef?.name;
  if (isAnswered(write)) answers.get(write)!.push(answered - Date.parse(line.requestReceivedTimestamp ?? ''));
  else if (write && name && (line.responseStatus?.code ?? 0) < 400) note(jobs, write, name, answered);
}

/** The stages of every Job of `namespace` in the audit `lines`, in ms; refused requests are left out. */
export function jobPathStages(lines: Iterable<string>, namespace: string): JobPathStages {
  const jobs = new Map<string, Times>();
  const answers = new Map<Answered, number[]>(ANSWERED.map((a) => [a, []]));
  for (const text of lines) {
    const line = text.includes(namespace) ? parsed(text) : undefined;
    if (line?.stage === 'ResponseComplete' && line.objectRef?.namespace === namespace) take(line, jobs, answers);
  }
  const list = [...jobs.values()];
  return {
    toKubelet: spans(list, 'bound', 'kwokFirst'),
    podRun: spans(list, 'kwokFirst', 'kwokLast'),
    toComplete: spans(list, 'kwokLast', 'lastJob'),
    whole: spans(list, 'bound', 'lastJob'),
    answerMs: Object.fromEntries(ANSWERED.map((a) => [a, distribution(answers.get(a)!)])) as Record<
      Answered,
      Distribution
    >,
  };
}
