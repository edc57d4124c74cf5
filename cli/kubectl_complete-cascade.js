#!/usr/bin/env node
// kubectl's completion of `kubectl cascade ...` (kubectl 1.26 and later):
// kubectl runs `kubectl_complete-cascade WORDS...` found on the PATH and reads
// cobra's `__complete` output, which `kubectl-cascade __complete` prints.
process.argv.splice(2, 0, '__complete');
await import('./kubectl-cascade.js');
