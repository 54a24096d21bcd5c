package integration

import (
	"os"
	"os/exec"
	"testing"
)

// Environment variables of a test re-run by inLoopbackOnly.
const (
	loopbackOnlyEnv = "NEXUS_TEST_LOOPBACK_ONLY" // set: this process runs in the namespace
	builtNexusEnv   = "NEXUS_TEST_NEXUS"         // the nexus binary the parent built
)

// inLoopbackOnly is for a test whose servers listen beyond loopback (on
// 0.0.0.0): such a server must not be reachable from any other network.
// Called in the test's own process, it re-runs the test in a new network
// namespace whose only interface is loopback (unshare -n, then ip link set
// lo up), where the test and its servers share that loopback, reports the
// re-run's outcome, and returns false: the caller returns. Called in the
// re-run, it returns true and the test runs.
func inLoopbackOnly(t *testing.T) bool {
	t.Helper()
	if os.Getenv(loopbackOnlyEnv) != "" {
		return true
	}
	unshare := []string{"unshare", "--net"}
	if os.Geteuid() != 0 {
		unshare = append(unshare, "--map-root-user") // a user namespace, where allowed
	}
	args := append(unshare, "sh", "-c", `ip link set lo up && exec "$@"`, "sh",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), loopbackOnlyEnv+"=1", builtNexusEnv+"="+nexusBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a network namespace with only loopback (needs root, or user namespaces, and `ip`): %v\n%s", t.Name(), err, out)
	}
	t.Logf("ran in a network namespace with only loopback:\n%s", out)
	return false
}
