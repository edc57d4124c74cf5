# A scenario module for the real node, as a seed module behaves. It reads its
# configuration from its environment: each key of the module's configuration,
# and s3path, finalstage, NAMESPACE, SCENARIONAME that Cascade adds. It prints
# lines and exits with the code its configuration asks for. Run by busybox's
# sh in the module image (images.ts). Keys it reads besides:
#   exitcode   the exit code (default 0)
#   lines      how many numbered lines to print after the header (default 0)
#   interval   seconds to sleep after each of them (default 0)
#   allocate   MiB of memory to fill and hold before exiting (default 0)
echo "module $(hostname) in namespace ${NAMESPACE:-} of scenario ${SCENARIONAME:-}"
echo "input ${s3path:-none}"
if [ "${finalstage:-}" = "true" ]; then echo "final stage"; fi
env | grep -vE '^(HOME|HOSTNAME|PATH|PWD|SHLVL|KUBERNETES_[A-Z0-9_]*)=' | sort | sed 's/^/env /'
i=0
while [ "$i" -lt "${lines:-0}" ]; do
  i=$((i + 1))
  echo "line $i"
  sleep "${interval:-0}"
done
if [ "${allocate:-0}" -gt 0 ]; then
  echo "allocating ${allocate} MiB"
  held=$(head -c "$((allocate * 1048576))" /dev/zero | tr '\0' x)
  echo "allocated ${#held} bytes"
fi
echo "exit ${exitcode:-0}"
exit "${exitcode:-0}"
