// A kubeconfig user's exec plugin, as client-go runs it: the command with its
// args and env, KUBERNETES_EXEC_INFO set, and its ExecCredential read from
// stdout. Its token is kept until its expirationTimestamp, then the command
// runs again. A credential with a client certificate and no token is refused.
import { execFileSync } from 'node:child_process';

export interface ExecConfig {
  command?: string;
  args?: string[];
  env?: { name: string; value: string }[] | null;
  apiVersion?: string;
}

interface ExecCredential {
  status?: { token?: string; expirationTimestamp?: string; clientCertificateData?: string };
}

/** The credential's token; throws when the plugin fails or gives none. */
export function runExec(exec: ExecConfig, run = execFileSync): { token: string; expires: number } {
  if (!exec.command) throw new Error("the kubeconfig's exec plugin names no command");
  const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1';
  const info = { apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of exec.env ?? []) env[name] = value;
  const out = run(exec.command, exec.args ?? [], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const status = (JSON.parse(String(out)) as ExecCredential).status;
  if (!status?.token)
    throw new Error(
      `the exec plugin ${exec.command} gave no token (a client certificate from a plugin is not supported)`,
    );
  const expires = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : Infinity;
  return { token: status.token, expires };
}

/** The plugin's token now: run at the first call, and again once the token it gave has expired. */
export function execToken(exec: ExecConfig, run = execFileSync): () => string {
  let held: { token: string; expires: number } | undefined;
  return () => {
    if (!held || Date.now() >= held.expires - 10_000) held = runExec(exec, run);
    return held.token;
  };
}
