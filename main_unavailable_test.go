package main

import (
	"net"
	"strings"
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

// TestCLI_ReadWithServerDown: a command that only reads, with nothing
// listening at --db, says the database server cannot be reached and
// exits 6, and claims neither that nothing was saved nor that it tries
// again (it does not). It needs no server.
func TestCLI_ReadWithServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nobody listens there now
	url := "postgres://postgres@" + addr + "/boxoffice?sslmode=disable&connect_timeout=5"
	data := t.TempDir()
	for _, args := range [][]string{{"shows"}, {"booking", "BO-22222222"}, {"find", "Ann"}, {"report", "refunds"}} {
		code, out, errOut := runCLI(t, data, "", append([]string{"--db", url}, args...)...)
		// The log's line before it says why (the address, connection
		// refused); the answer is the last line.
		if code != exitUnavailable || !strings.HasSuffix(errOut, "\nboxoffice: The database server cannot be reached.\n") || out != "" ||
			strings.Contains(errOut, "saved") || strings.Contains(errOut, "Trying again") {
			t.Errorf("%v with the server down: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
