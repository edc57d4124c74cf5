# A scenario module for the real node, as a seed module behaves. It reads its
# configuration from its environment: each key of the module's configuration,
# and s3path, finalstage, NAMESPACE, SCENARIONAME that Cascade adds. It prints
# lines and exits with the code its configuration asks for. Run by busybox's
# sh in the module image (images.ts). Keys it reads besides:
#   exitcode   the exit code (default 0)
#   lines      how many numbered lines to print after the header (default 0)
#   interval   seconds to sleep after each of them (default 0)
#   allocate   MiB of memory to fill and hold before exiting (default 0)
#   result     a module result to post first, as a CloudEvent to K_SINK (the
#              SinkBinding cascade-modules sets it), for the run RUNNAME and
#              the module MODULENAME of the container's environment
echo "module $(hostname) in namespace ${NAMESPACE:-} of scenario ${SCENARIONAME:-}"
echo "input ${s3path:-none}"
if [ "${finalstage:-}" = "true" ]; then echo "final stage"; fi
env | grep -vE '^(HOME|HOSTNAME|PATH|PWD|SHLVL|KUBERNETES_[A-Z0-9_]*)=' | sort | sed 's/^/env /'
if [ -n "${result:-}" ]; then
  echo "posting module result ${result} to ${K_SINK:-}"
  body="{\"runname\":\"${RUNNAME:-}\",\"modulename\":\"${MODULENAME:-}\",\"moduleresult\":\"${result}\"}"
  if wget -q -O /dev/null --header 'content-type: application/json' --header 'ce-specversion: 1.0' \
    --header "ce-id: $(hostname)-result" --header 'ce-source: /module.sh' \
    --header 'ce-type: net.cascade.module.finished.v1' --post-data "$body" "${K_SINK:-}"; then
    echo "module result posted"
  else
    echo "module result not posted"
  fi
fi
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
