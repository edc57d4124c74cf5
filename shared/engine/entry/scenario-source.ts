// Where a new run's scenario comes from: the CascadeAutoOperator named
// SCENARIO_NAME when it exists, else the JSON file at CONFIG_PATH (as the Go
// controller read it). The source is named (`CascadeAutoOperator/<name>` or
// `file:<path>`): the reply and the run say which one a run was started from.
import { readFile } from 'node:fs';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { parseScenario } from '../../api/scenario.ts';
import type { CascadeModule } from '../../api/scenario.ts';

export type ScenarioResult = { ok: true; modules: CascadeModule[]; source: string } | { ok: false; reason: string };

export const fileSource = (path: string): string => `file:${path}`;
export const operatorSource = (name: string): string => `CascadeAutoOperator/${name}`;

/** node:fs's callback readFile, not node:fs/promises: that module (and the readline modules it loads) would load with the function. */
const readText = (path: string) =>
  new Promise<string>((ok, fail) => readFile(path, 'utf8', (error, text) => (error ? fail(error) : ok(text))));

export async function scenarioFromFile(path: string): Promise<ScenarioResult> {
  let text: string;
  try {
    text = await readText(path);
  } catch (error) {
    return { ok: false, reason: `cannot read the scenario file ${path}: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `the scenario file ${path} is not JSON: ${(error as Error).message}` };
  }
  const parsed = parseScenario(json);
  return parsed.ok
    ? { ok: true, modules: parsed.value.cascademodules, source: fileSource(path) }
    : { ok: false, reason: `${path}: ${parsed.reason}` };
}

export async function loadScenario(op: CascadeAutoOperator | undefined, configPath: string): Promise<ScenarioResult> {
  if (!op) return scenarioFromFile(configPath);
  const parsed = parseScenario(op.spec.scenarioconfig);
  if (parsed.ok) return { ok: true, modules: parsed.value.cascademodules, source: operatorSource(op.metadata.name) };
  return { ok: false, reason: `CascadeAutoOperator ${op.metadata.name}: ${parsed.reason}` };
}
