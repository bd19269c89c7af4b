// Package e2e holds the end-to-end tests of the built boxoffice binary:
// in a real terminal (tmux), over the system's ssh client, as many
// processes on one file, killed mid-write, on a full disk. Its tests
// build the binary once per run (internal/clitest) and run beside the
// root package's in-process command-line tests.
package e2e
