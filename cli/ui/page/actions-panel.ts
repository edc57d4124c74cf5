// Cancel and resume, each after a confirmation; the server's answer shown as
// it is (the API server's Forbidden too). Made once per run page, so that
// the answer stays while the run changes under it.
import { isFinal, phaseOf, type RunObject } from '../../runs/run-object.ts';
import { act } from './api.ts';
import { h, replace } from './dom.ts';

const RESUMABLE = ['Failed', 'Cancelled'];
type Action = 'cancel' | 'resume';

export function actionsPanel(at: { namespace: string; name: string }): {
  el: HTMLElement;
  update(run: RunObject): void;
} {
  const out = h('p', { class: 'answer', role: 'status', 'aria-live': 'polite' });
  const busy = new Set<Action>();
  const enabled = { cancel: false, resume: false };
  const buttons = {} as Record<Action, HTMLButtonElement>;
  const sync = () => {
    for (const a of ['cancel', 'resume'] as const) buttons[a].disabled = busy.has(a) || !enabled[a];
  };
  for (const action of ['cancel', 'resume'] as const) {
    const b = h('button', { type: 'button', 'data-action': action }, action === 'cancel' ? 'Cancel run' : 'Resume run');
    b.addEventListener('click', async () => {
      if (!window.confirm(`${action === 'cancel' ? 'Cancel' : 'Resume'} cascaderun ${at.name}?`)) return;
      busy.add(action);
      sync();
      out.className = 'answer';
      replace(out, `${action}: asking the API server…`);
      const answer = await act(action, at.namespace, at.name);
      out.className = `answer answer-${answer.state}`;
      replace(out, answer.message);
      busy.delete(action);
      sync();
    });
    buttons[action] = b;
  }
  return {
    el: h('div', { class: 'actions' }, buttons.cancel, ' ', buttons.resume, out),
    update(run) {
      enabled.cancel = !isFinal(run);
      enabled.resume = RESUMABLE.includes(phaseOf(run));
      sync();
    },
  };
}
