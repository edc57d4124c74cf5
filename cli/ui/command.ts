// `ui`: a live web view of the runs, served from this process with the
// user's own kubeconfig. Nothing runs in the cluster for it; it stops with
// Ctrl-C (exit 130, as every command).
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { pageAssets } from './assets.ts';
import { listenError, uiSettings, type UiFlags } from './options.ts';
import { startUiServer } from './server.ts';
import { COMMAND_LINES } from '../commands/summaries.ts';

/** The longest --open waits for the first list of runs before it opens the page. */
const OPEN_WAIT_MS = 30_000;

/** The system's own opener, when there is one; a failure to open changes nothing. */
function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    spawn(cmd, [url], { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  } catch {
    /* no opener: the URL is printed */
  }
}

export function registerUi(program: Command, ctx: Ctx): void {
  program
    .command('ui')
    .description(COMMAND_LINES.ui.description)
    .option('--port <port>', 'the port to listen on (0: any free port)', '7080')
    .option('--address <address>', 'the address to listen on (keep loopback unless you mean to share it)', '127.0.0.1')
    .option('--open', "open the page in the system's browser")
    .option('-A, --all-namespaces', 'runs and scenarios of every namespace')
    .action(
      act(ctx, async (flags: UiFlags, cmd: Command) => {
        const settings = uiSettings(flags);
        const conn = connection(cmd);
        const namespace = settings.allNamespaces ? undefined : conn.namespace;
        const server = await startUiServer({
          kube: conn,
          namespace,
          address: settings.address,
          port: settings.port,
          assets: await pageAssets(),
          context: `${conn.context} · ${namespace ?? 'all namespaces'}`,
        }).catch((error: unknown) => {
          throw listenError(error, settings);
        });
        if (settings.warning) ctx.io.err.write(`${settings.warning}\n`);
        ctx.io.out.write(`Cascade ui on ${server.url} (Ctrl-C stops it)\n`);
        // The page opens once the runs are read, so that its first screen is drawn at once: a namespace of
        // 10,000 runs takes the API server seconds to list. A list that does not come opens it anyway.
        if (settings.open) {
          await Promise.race([server.ready, new Promise((r) => setTimeout(r, OPEN_WAIT_MS).unref())]);
          openBrowser(server.url);
        }
        await new Promise<never>(() => {});
      }),
    );
}
