# Sourced by the build scripts of queue-proxy, knative-validate and Knative Serving: the wrapper
# Go module through which they build from knative.dev/serving, pinned to what
# the module proxy can serve:
#   - knative.dev/serving at the version given (v0.51.0);
#   - knative.dev/pkg, knative.dev/networking and knative.dev/caching at the
#     July 2026 pseudo-versions that serving v0.50.0 uses: the module proxy
#     refuses the October 2026 ones that v0.51.0 pins;
#   - go.opentelemetry.io/otel/sdk at v1.44.0: with that pkg, a newer sdk makes
#     queue-proxy exit at start ("conflicting Schema URL").
# So the binaries mix versions (see docs/local-stack.md).
SERVING_PKG_VERSION="v0.0.0-20260727151759-521cb33b33dd"
SERVING_NETWORKING_VERSION="v0.0.0-20260727162500-c7a7b772cac9"
SERVING_CACHING_VERSION="v0.0.0-20260727161800-0edbf88bc267"
SERVING_OTEL_SDK_VERSION="v1.44.0"

# write_serving_go_mod MODULE-NAME SERVING-VERSION DIR: writes DIR/go.mod (and
# drops a go.sum left by an earlier build).
write_serving_go_mod() {
  cat >"$3/go.mod" <<MOD
module $1

go 1.26

require knative.dev/serving $2

replace (
	knative.dev/pkg => knative.dev/pkg $SERVING_PKG_VERSION
	knative.dev/networking => knative.dev/networking $SERVING_NETWORKING_VERSION
	knative.dev/caching => knative.dev/caching $SERVING_CACHING_VERSION
	go.opentelemetry.io/otel/sdk => go.opentelemetry.io/otel/sdk $SERVING_OTEL_SDK_VERSION
)
MOD
  rm -f "$3/go.sum"
}
