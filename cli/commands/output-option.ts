import { Option } from 'commander';
import { OUTPUT_FORMATS } from '../io.ts';

/** -o json|yaml|wide|name, as kubectl's read commands have it. */
export const outputOption = () => new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS);
