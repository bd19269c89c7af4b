package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad --listen fails at once with exit 2 and a clear message, before the
// data dir is touched: serve listens before it opens anything. (Before,
// it opened the data dir, listened in the background, waited 100 ms to
// see whether that failed, and exited 1.)
func TestCLI_ServeBadListen(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"127.0.0.1:99999", busy.Addr().String(), "nowhere.invalid:22"} {
		data := filepath.Join(t.TempDir(), "data")
		code, out, errOut := runCLI(t, data, "", "serve", "--listen", addr)
		if code != exitUsage || !strings.Contains(errOut, "Cannot listen on "+addr) || out != "" {
			t.Errorf("serve --listen %s: exit %d, stdout %q, stderr %q", addr, code, out, errOut)
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("serve --listen %s made the data dir (%v)", addr, err)
		}
	}
}
