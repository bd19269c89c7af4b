package e2e

import (
	"os"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// TestMain runs the package's tests in UTC, as the binaries they start
// inherit the zone, and removes the binary they built (clitest.Binary)
// when they are done.
func TestMain(m *testing.M) {
	os.Setenv("TZ", "UTC")
	time.Local = time.UTC
	code := m.Run()
	clitest.RemoveBinary()
	os.Exit(code)
}

// runCLI runs the built binary on a data dir and returns its exit code
// and output; after an init that succeeds it opens the command line's
// shift (clitest.Run).
func runCLI(t *testing.T, data, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, clitest.Exec(clitest.Binary(t)), data, stdin, args...)
}

// firstShowID returns the id of a show that is still on sale tomorrow,
// with the command line's shift open.
func firstShowID(t *testing.T, data string) string {
	t.Helper()
	return clitest.FirstShowID(t, clitest.Exec(clitest.Binary(t)), data)
}

// grandShowID is the id of tomorrow's first show in the Grand hall.
func grandShowID(t *testing.T, data string) string {
	t.Helper()
	return clitest.GrandShowID(t, clitest.Exec(clitest.Binary(t)), data)
}

// The exit codes scripts read (docs), written out here rather than taken
// from package main: these tests see the binary as a script does, so a
// changed number fails them.
const (
	exitUsage    = 2
	exitConflict = 3
	exitDiskFull = 5
)
