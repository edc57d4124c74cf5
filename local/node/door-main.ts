// The real node's doors as processes (door.ts), started by node.ts, one in
// the node's network namespace and one in the machine's. Each argument is one
// door of the process:
//   proxy=SOCKET[,DNS]   the door proxy on Unix socket SOCKET, names resolved by DNS
//   forward=FROM,TO      a forward; FROM and TO as door.ts's parseEndpoint reads them
import { parseEndpoint, startDoorProxy, startForward } from './door.ts';

const doors = process.argv.slice(2);
if (doors.length === 0) {
  process.stderr.write('usage: door-main.ts proxy=SOCKET[,DNS] | forward=FROM,TO ...\n');
  process.exit(2);
}
for (const door of doors) {
  const [role, spec = ''] = door.split(/=(.*)/s);
  const [first = '', second] = spec.split(',');
  if (role === 'proxy') await startDoorProxy(first, second ? { dns: second } : {});
  else if (role === 'forward' && second) await startForward(parseEndpoint(first), parseEndpoint(second));
  else throw new Error(`not a door: ${door}`);
  process.stdout.write(`door: ${door} ready\n`);
}
