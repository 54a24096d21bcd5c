// Package deploy holds what a user needs to run nexus replicas (a
// Dockerfile, a Kubernetes manifest, an HAProxy configuration; see
// docs/deploy.md) and the tests that keep them in step with the build:
// neither Docker nor Kubernetes runs in CI, so these check what can be
// checked without them. integration/replicas_test.go runs haproxy.cfg.
package deploy

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// match returns the first submatch of re in s, failing when there is none.
func match(t *testing.T, what, s, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s: nothing matches %s", what, re)
	}
	return m[1]
}

// The image builds nexus with the Go of go.mod, as `make build` does, and
// installs the pools' packages that scripts/setup.sh installs.
func TestDockerfileBuildsAsMake(t *testing.T) {
	docker := read(t, "Dockerfile")
	goVersion := match(t, "go.mod", read(t, "../go.mod"), `(?m)^go (\S+)$`)
	if from := match(t, "Dockerfile", docker, `(?m)^FROM golang:(\S+?)-`); from != goVersion {
		t.Errorf("Dockerfile builds with Go %s, go.mod says %s", from, goVersion)
	}
	makefile := read(t, "../Makefile")
	tags := match(t, "Makefile", makefile, `(?m)^TAGS\s*:=\s*(\S+)$`)
	build := match(t, "Makefile", makefile, `(?m)^build:\n\tCGO_ENABLED=0 \$\(GO\) build -tags \$\(TAGS\) -o \$\(NEXUS\) (\S+)$`)
	want := "CGO_ENABLED=0 go build -tags " + tags + " -o /usr/local/bin/nexus " + build
	if !strings.Contains(docker, "RUN "+want+"\n") {
		t.Errorf("Dockerfile does not build nexus as make build does: want the step RUN %s", want)
	}

	setup := read(t, "../scripts/setup.sh")
	list := match(t, "scripts/setup.sh", setup, `(?m)^\s*for pkg in (.*libgrpc.*); do$`)
	installed := strings.Fields(strings.ReplaceAll(match(t, "Dockerfile", docker, `(?s)apt-get install -y --no-install-recommends (.*?)\n \&\&`), "\\", " "))
	for _, pkg := range strings.Fields(list) {
		if pkg != "haproxy" && !slices.Contains(installed, pkg) {
			t.Errorf("Dockerfile does not install %s, which scripts/setup.sh installs for the pools (it installs %v)", pkg, installed)
		}
	}
	pip := match(t, "scripts/setup.sh", setup, `pip install -q (.*)\n`)
	if !strings.Contains(docker, "--break-system-packages "+pip+" ") {
		t.Errorf("Dockerfile does not pip install %s, as scripts/setup.sh does", pip)
	}
}

// Kubernetes lets a replica drain and finish its calls before SIGKILL,
// and takes it out on the answer of /health.
func TestKubernetesFitsTheImage(t *testing.T) {
	docker, kube := read(t, "Dockerfile"), read(t, "kubernetes.yaml")
	flag := func(name string) time.Duration {
		d, err := time.ParseDuration(match(t, "Dockerfile", docker, `"--`+name+`", "([^"]+)"`))
		if err != nil {
			t.Fatalf("Dockerfile --%s: %v", name, err)
		}
		return d
	}
	drain, grace := flag("drain"), flag("shutdown-grace")
	period, err := strconv.Atoi(match(t, "kubernetes.yaml", kube, `terminationGracePeriodSeconds: (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(period)*time.Second <= drain+grace {
		t.Errorf("terminationGracePeriodSeconds %d does not cover --drain %v and --shutdown-grace %v", period, drain, grace)
	}
	probe := match(t, "kubernetes.yaml", kube, `(?s)readinessProbe:\s*httpGet:\s*path: (\S+)`)
	if probe != "/health" {
		t.Errorf("the readiness probe asks %s, want /health", probe)
	}
	every, err := strconv.Atoi(match(t, "kubernetes.yaml", kube, `(?s)readinessProbe:.*?periodSeconds: (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(every)*time.Second >= drain {
		t.Errorf("the readiness probe every %ds may not see the %v of draining", every, drain)
	}
	if !strings.Contains(docker, `"--http-port", "8080"`) || !strings.Contains(kube, "containerPort: 8080") {
		t.Error("the image and the Deployment disagree on the port (want 8080)")
	}
}
