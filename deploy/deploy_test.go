// Package deploy holds what a user needs to run nexus replicas (a
// Dockerfile, a Kubernetes manifest, an HAProxy configuration, a
// Prometheus scrape configuration; see docs/deploy.md) and the tests that
// keep them in step with the build:
// neither Docker nor Kubernetes runs in CI, so these check what can be
// checked without them. integration/replicas_test.go runs haproxy.cfg.
package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/metrics"
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
		// haproxy, chromium and prometheus are for the tests, not the
		// pools.
		if !slices.Contains([]string{"haproxy", "chromium", "prometheus"}, pkg) && !slices.Contains(installed, pkg) {
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

// Prometheus finds the replicas by the annotations of the Deployment's
// pods, scrapes the port and path they name with the token, and
// promtool finds deploy/prometheus.yml valid.
func TestPrometheusScrapesTheDeployment(t *testing.T) {
	kube, prom := read(t, "kubernetes.yaml"), read(t, "prometheus.yml")
	annotations := match(t, "kubernetes.yaml", kube, `(?s)template:\s*metadata:.*?annotations:\n((?:\s{8}\S.*\n)+)`)
	for _, want := range []string{
		`prometheus.io/scrape: "true"`,
		`prometheus.io/port: "` + match(t, "kubernetes.yaml", kube, `containerPort: (\d+)`) + `"`,
		`prometheus.io/path: ` + metrics.Path,
	} {
		if !strings.Contains(annotations, want+"\n") {
			t.Errorf("the pods' annotations lack %s:\n%s", want, annotations)
		}
	}
	for _, label := range []string{"scrape", "port", "path"} {
		if !strings.Contains(prom, "__meta_kubernetes_pod_annotation_prometheus_io_"+label) {
			t.Errorf("prometheus.yml does not read the annotation prometheus.io/%s", label)
		}
	}
	if !strings.Contains(kube, "name: nexus-mcp") || !strings.Contains(prom, "secretName: nexus-mcp") {
		t.Error("prometheus.yml does not say to mount the Secret of the token that kubernetes.yaml reads")
	}

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool (Debian's prometheus package) is not installed: run make setup")
	}
	// promtool wants the token's file to exist.
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	credentials := match(t, "prometheus.yml", prom, `credentials_file: (\S+)`)
	config := strings.Replace(prom, "credentials_file: "+credentials, "credentials_file: "+tokenFile, 1)
	out, err := checkConfig(t, promtool, config)
	if err != nil && strings.Contains(out, "field kubernetes_sd_configs not found") {
		// Debian builds Prometheus without Kubernetes discovery: check
		// the rest with a static target in its place.
		t.Log("this promtool has no Kubernetes discovery; checking prometheus.yml with a static target instead")
		static := strings.Replace(config, "kubernetes_sd_configs:\n      - role: pod\n", "static_configs:\n      - targets: [\"127.0.0.1:8080\"]\n", 1)
		if static == config {
			t.Fatal("prometheus.yml: no kubernetes_sd_configs of role pod to replace")
		}
		out, err = checkConfig(t, promtool, static)
	}
	if err != nil {
		t.Errorf("promtool check config prometheus.yml: %v\n%s", err, out)
	}
}

// checkConfig runs promtool check config on config.
func checkConfig(t *testing.T, promtool, config string) (string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "config", file).CombinedOutput()
	return string(out), err
}
