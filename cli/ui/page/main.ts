// The page's entry: the event stream into the store, and the view the path
// names. Links inside the page change the path with the History API, so the
// back button and deep links work without reloading.
import { connect } from './api.ts';
import { h, link, replace } from './dom.ts';
import { viewOf } from './router.ts';
import { runView } from './run-view.ts';
import { runsView } from './runs-view.ts';
import { scenarioView, scenariosView } from './scenario-view.ts';
import { PageStore } from './store.ts';

const store = new PageStore();
connect(store);
const main = document.getElementById('main')!;
let unmount: () => void = () => {};

function show(): void {
  unmount();
  const view = viewOf(location.pathname);
  const titles = { runs: 'Runs', scenarios: 'Scenarios', run: 'Run', scenario: 'Scenario', missing: 'Not found' };
  document.title = `${'name' in view ? `${view.name} · ` : ''}${titles[view.kind]} · Cascade`;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('header nav a'))
    a.toggleAttribute(
      'aria-current',
      location.pathname.startsWith(a.pathname) || (a.pathname === '/runs' && location.pathname === '/'),
    );
  if (view.kind === 'runs') unmount = runsView(main, store);
  else if (view.kind === 'scenarios') unmount = scenariosView(main, store);
  else if (view.kind === 'run') unmount = runView(main, store, view);
  else if (view.kind === 'scenario') unmount = scenarioView(main, store, view);
  else {
    replace(main, h('h1', {}, 'Not found'), h('p', {}, link('/runs', 'Back to the runs')));
    unmount = () => {};
  }
}

document.addEventListener('click', (e) => {
  const a = (e.target as Element | null)?.closest?.('a');
  if (!a || a.origin !== location.origin || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  if (a.pathname !== location.pathname) history.pushState(null, '', a.pathname);
  show();
  main.focus();
});
window.addEventListener('popstate', show);
show();
