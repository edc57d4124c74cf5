import { InvalidArgumentError, Option } from 'commander';
import { JsonPathError, parseTemplate } from '../format/jsonpath.ts';
import { OUTPUT_FORMATS, type OutputFormat } from '../io.ts';

const PLAIN: readonly string[] = ['json', 'yaml', 'wide', 'name'];

/** Checks -o's value; a jsonpath template (kubectl's quotes around it taken off) is parsed here, so a bad one stops the command before it asks the API server. */
export function parseOutput(value: string): OutputFormat {
  if (PLAIN.includes(value)) return value as OutputFormat;
  const m = /^jsonpath=(.*)$/s.exec(value);
  if (!m) throw new InvalidArgumentError(`Allowed choices are ${OUTPUT_FORMATS.join(', ')}.`);
  const template = /^(['"]).*\1$/s.test(m[1]!) ? m[1]!.slice(1, -1) : m[1]!;
  try {
    parseTemplate(template);
  } catch (error) {
    if (error instanceof JsonPathError)
      throw new InvalidArgumentError(`error parsing jsonpath ${template}: ${error.message}`);
    throw error;
  }
  return `jsonpath=${template}`;
}

/** -o json|yaml|wide|name|jsonpath=TEMPLATE, as kubectl's read commands have it. */
export const outputOption = () =>
  new Option('-o, --output <format>', `output format: ${OUTPUT_FORMATS.join(', ')}`).argParser(parseOutput);
