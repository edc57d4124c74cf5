// The floor under `kubectl cascade version`: a bare Node.js process that
// makes one HTTPS GET of /version with the client certificate given, and
// nothing else. The cli phase times it as it times the plugin.
// Usage: node bench/tls-get-floor.mjs URL CA_FILE CERT_FILE KEY_FILE
import { readFileSync } from 'node:fs';
import { get } from 'node:https';

const [url, ca, cert, key] = process.argv.slice(2);
get(url, { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) }, (res) => {
  res.resume();
  res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 1));
}).on('error', () => process.exit(1));
