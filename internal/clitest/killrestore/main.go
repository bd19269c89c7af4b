// Command killrestore is a test's helper, not a tool: it runs boxoffice
// restore (its arguments are the command line's) and kills itself with
// SIGKILL as the restore reaches the step named by
// BOXOFFICE_TEST_KILL_RESTORE_AT (one of db.RestoreSteps), so the test
// finds what a power cut there leaves. The root package's
// TestCLI_RestoreKilledAtEveryStep builds it with clitest.Helper, without
// the race detector: twenty children under it cost more than the rest of
// the test, and the restore runs under it in process in the other restore
// tests. It exits 3 if the restore was not killed.
package main

import (
	"context"
	"fmt"
	"os"

	"boxoffice/cli"
	"boxoffice/db"
)

func main() {
	step := os.Getenv("BOXOFFICE_TEST_KILL_RESTORE_AT")
	if step == "" {
		fmt.Fprintln(os.Stderr, "killrestore: BOXOFFICE_TEST_KILL_RESTORE_AT names no step")
		os.Exit(2)
	}
	db.RestoreStepHook = func(at string) {
		if at == step {
			self, _ := os.FindProcess(os.Getpid())
			self.Kill()
			select {} // the signal is on its way
		}
	}
	err := cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	fmt.Printf("restore was not killed at %s: %v\n", step, err)
	os.Exit(3)
}
