// The images of Knative Eventing's commands, laid out as ko lays them out on
// Eventing's base image, gcr.io/distroless/static:nonroot (its .ko.yaml). The
// static binary is at /ko-app/<name>, KO_DATA_PATH is /var/run/ko, the user is
// nonroot, 65532. Beside it is what distroless gives a static binary:
// /etc/passwd, /etc/group, /etc/nsswitch.conf, the CA bundle, /tmp. Written
// with no daemon by local/node/image-build.ts.
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { ImageDefinition, ImageFile } from '../../node/image-build.ts';
import { imageReference } from './components.ts';

/** The host's CA bundle, where Debian keeps it, as distroless keeps it. */
export const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
export const KO_DATA_PATH = '/var/run/ko';
export const NONROOT = '65532:65532';

const distrolessFiles: ImageFile[] = [
  {
    path: '/etc/passwd',
    content:
      'root:x:0:0:root:/root:/sbin/nologin\n' +
      'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' +
      'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
  },
  { path: '/etc/group', content: 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' },
  { path: '/etc/nsswitch.conf', content: 'hosts: files dns\n' },
  { path: '/tmp', dir: true, mode: 0o1777 },
  { path: '/home/nonroot', dir: true, mode: 0o755 },
  { path: KO_DATA_PATH, dir: true, mode: 0o755 },
];

/** The image of one command, `binary` being build.sh's binary of it. */
export function eventingImage(cmd: string, binary: string, caBundle = CA_BUNDLE): ImageDefinition {
  // ko names the binary after the import path's last element
  const app = `/ko-app/${posix.basename(cmd)}`;
  const files: ImageFile[] = [{ path: app, from: binary, mode: 0o755 }, ...distrolessFiles];
  if (existsSync(caBundle)) files.push({ path: CA_BUNDLE, from: caBundle, mode: 0o644 });
  return {
    reference: imageReference(cmd),
    files,
    config: {
      entrypoint: [app],
      user: NONROOT,
      env: {
        PATH: '/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/ko-app',
        SSL_CERT_FILE: CA_BUNDLE,
        KO_DATA_PATH,
      },
    },
  };
}
