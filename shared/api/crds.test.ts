import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { generateCrds, renderCrd } from './crds.ts';
import type { OpenApiSchema } from './openapi.ts';

const CRD_DIR = join(import.meta.dirname, '..', '..', 'crds');
const generated = generateCrds();

type Node = OpenApiSchema | undefined;

/** Paths of nodes that break the structural-schema rule: a type everywhere, unless unknown fields are kept. */
function untyped(node: Node, path: string): string[] {
  if (node === undefined) return [];
  const own = node.type === undefined && node['x-kubernetes-preserve-unknown-fields'] !== true ? [path] : [];
  const props = Object.entries(node.properties ?? {}).flatMap(([k, child]) => untyped(child, `${path}.${k}`));
  return [...own, ...props, ...untyped(node.items, `${path}[]`), ...untyped(node.additionalProperties, `${path}{}`)];
}

function openApi(crd: Record<string, unknown>): OpenApiSchema {
  const spec = crd['spec'] as { versions: { schema: { openAPIV3Schema: OpenApiSchema } }[] };
  const schema = spec.versions[0]?.schema.openAPIV3Schema;
  if (schema === undefined) throw new Error('no schema');
  return schema;
}

describe('crds/*.yaml', () => {
  it.each(generated.map((g) => [g.file, g] as const))(
    '%s is what `npm run gen:crds` generates from the valibot schemas',
    async (file, { crd }) => {
      const committed = await readFile(join(CRD_DIR, file), 'utf8');
      expect(parse(committed), `crds/${file} is stale: run npm run gen:crds`).toEqual(parse(renderCrd(crd)));
    },
  );

  it.each(generated.map((g) => [g.file, g] as const))('%s is a structural schema', (_file, { crd }) => {
    expect(untyped(openApi(crd), '')).toEqual([]);
  });

  it('names both kinds in group cascade.cascade.net, namespaced, with a status subresource', () => {
    expect(generated.map((g) => g.file)).toEqual([
      'cascaderuns.cascade.cascade.net.yaml',
      'cascadeautooperators.cascade.cascade.net.yaml',
    ]);
    for (const { crd } of generated) {
      expect(crd).toMatchObject({
        spec: {
          group: 'cascade.cascade.net',
          scope: 'Namespaced',
          names: { categories: ['cascade'] },
          versions: [{ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } }],
        },
      });
    }
  });

  it('requires a non-empty pid and a list of module names on CascadeRuns', () => {
    const spec = openApi(generated[0]?.crd ?? {}).properties?.['spec'];
    expect(spec?.required).toEqual(expect.arrayContaining(['pid', 'modules']));
    expect(spec?.properties?.['pid']).toMatchObject({ type: 'string', minLength: 1 });
    expect(spec?.properties?.['modules']).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(spec?.['x-kubernetes-validations']).toEqual([expect.objectContaining({ rule: 'self == oldSelf' })]);
  });
});
