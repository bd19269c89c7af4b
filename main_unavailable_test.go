package main

import (
	"testing"

	"boxoffice/booking"
)

// TestExitCode_Unavailable: a database server that cannot be reached has
// an exit code of its own, for scripts that wait and run again.
func TestExitCode_Unavailable(t *testing.T) {
	t.Parallel()
	if got := exitCode(booking.Errorf(booking.EUnavailable, "x")); got != 6 {
		t.Fatalf("exit code %d, want 6", got)
	}
}
