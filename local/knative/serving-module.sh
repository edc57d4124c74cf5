# Sourced by the build scripts of Knative Serving and knative-validate: the
# wrapper Go module through which they build from knative.dev/serving.
# Serving v0.50.0 is the Knative release of Eventing v0.50.0, and requires
# the same knative.dev/pkg and the same Kubernetes libraries. One thing is
# raised to Eventing's: golang.org/x/time, v0.10.0 to v0.12.0, which client-go
# imports. So Serving's build finds client-go and knative.dev/pkg compiled by
# Eventing's in Go's build cache (docs/local-stack.md).
# The versions of knative.dev/networking and knative.dev/caching are Serving's
# own; binaries.ts reads them for the CRDs of their config/ folders.
SERVING_NETWORKING_VERSION="v0.0.0-20260727162500-c7a7b772cac9"
SERVING_CACHING_VERSION="v0.0.0-20260727161800-0edbf88bc267"
SERVING_X_TIME_VERSION="v0.12.0"

# write_serving_go_mod MODULE-NAME SERVING-VERSION DIR: writes DIR/go.mod (and
# drops a go.sum left by an earlier build).
write_serving_go_mod() {
  cat >"$3/go.mod" <<MOD
module $1

go 1.26

require (
	knative.dev/serving $2
	golang.org/x/time $SERVING_X_TIME_VERSION
)
MOD
  rm -f "$3/go.sum"
}
