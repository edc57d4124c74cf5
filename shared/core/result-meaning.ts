// Which `moduleresult` values end a step. Case and surrounding spaces do not
// matter. Any other value is kept in status as information and the step waits
// for its Job to finish.
export type ResultMeaning = 'success' | 'failure' | 'info';

export const SUCCESS_RESULTS = ['success', 'succeeded', 'successful', 'ok', 'done', 'complete', 'completed'] as const;
export const FAILURE_RESULTS = ['fail', 'failed', 'failure', 'error'] as const;

export function resultMeaning(moduleresult: string): ResultMeaning {
  const word = moduleresult.trim().toLowerCase();
  if ((SUCCESS_RESULTS as readonly string[]).includes(word)) return 'success';
  if ((FAILURE_RESULTS as readonly string[]).includes(word)) return 'failure';
  return 'info';
}
