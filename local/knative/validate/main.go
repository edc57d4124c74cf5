// Validates Knative Services with Knative Serving's own code, as its admission
// webhook does on create. Serving's configuration is the default one: every
// feature flag is at its default, e.g. kubernetes.podspec-fieldref and
// kubernetes.podspec-securitycontext are off. Each YAML document on stdin that
// is a serving.knative.dev/v1 Service is defaulted and validated. It prints one
// JSON line per Service with its name, its errors and its warnings. Built by
// build.sh beside it; see test/knative-validation.test.ts.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"knative.dev/pkg/apis"
	v1 "knative.dev/serving/pkg/apis/serving/v1"
	"sigs.k8s.io/yaml"
)

type result struct {
	Name     string `json:"name"`
	Errors   string `json:"errors"`
	Warnings string `json:"warnings"`
}

func main() {
	in, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, doc := range strings.Split(string(in), "\n---\n") {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if yaml.Unmarshal([]byte(doc), &head) != nil || head.APIVersion != "serving.knative.dev/v1" || head.Kind != "Service" {
			continue
		}
		var svc v1.Service
		if err := yaml.UnmarshalStrict([]byte(doc), &svc); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ctx := apis.WithinCreate(context.Background())
		svc.SetDefaults(ctx)
		out := result{Name: svc.Name}
		if fe := svc.Validate(ctx); fe != nil {
			if e := fe.Filter(apis.ErrorLevel); e != nil {
				out.Errors = e.Error()
			}
			if w := fe.Filter(apis.WarningLevel); w != nil {
				out.Warnings = w.Error()
			}
		}
		line, _ := json.Marshal(out)
		fmt.Println(string(line))
	}
}
