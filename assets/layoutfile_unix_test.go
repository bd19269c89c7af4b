//go:build unix

package assets_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
)

// layoutDir makes a folder holding a good layout, a bad one, a FIFO with
// no writer, a sparse 100 MB file, a file that is not a layout but holds
// a secret, and links out of the folder and to the FIFO.
func layoutDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"annex.hall":  "hall: Annex\n\nA | ssss\n",
		"bad.hall":    "hall: Bad\n\nA | ss?s\n",
		"passwd":      "root:x:0:0:Sekr1tWord:/root:/bin/sh\n",
		"binary.hall": "\x00\x01ELF Sekr1tWord",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.hall"), 0o600); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "big.hall"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	big.Close()
	for link, to := range map[string]string{"zero.hall": "/dev/zero", "pipe.hall": "fifo.hall"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readBounded runs read and fails the test unless it returns within a
// few seconds (a blocking open of a FIFO would never return).
func readBounded(t *testing.T, what string, read func() (*booking.Hall, error)) (*booking.Hall, error) {
	t.Helper()
	type result struct {
		h   *booking.Hall
		err error
	}
	done := make(chan result, 1)
	go func() { h, err := read(); done <- result{h, err} }()
	select {
	case r := <-done:
		return r.h, r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still reading after 5s", what)
		return nil, nil
	}
}

// ReadLayoutFile refuses what is not a small regular file before
// reading it, without blocking, and never quotes a file that is not a
// layout; a layout's own mistakes are named by line and column.
func TestReadLayoutFile(t *testing.T) {
	dir := layoutDir(t)
	for _, c := range []struct{ path, says string }{
		{"/dev/zero", "/dev/zero is a device, not a layout file."},
		{filepath.Join(dir, "fifo.hall"), "fifo.hall is a named pipe, not a layout file."},
		{filepath.Join(dir, "big.hall"), "big.hall is 100.0 MiB: a hall layout is at most 64 KiB."},
		{dir, "is a folder, not a layout file."},
		{filepath.Join(dir, "passwd"), "passwd:1:1: not a hall layout"},
		{filepath.Join(dir, "binary.hall"), "binary.hall:1:1: not a hall layout"},
		{filepath.Join(dir, "bad.hall"), `bad.hall:3:7: unexpected "?" in row A`},
		{filepath.Join(dir, "missing.hall"), "missing.hall: no such file or directory"},
	} {
		_, err := readBounded(t, c.path, func() (*booking.Hall, error) { return assets.ReadLayoutFile(c.path) })
		msg := booking.ErrorMessage(err)
		if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(msg, c.says) || strings.Contains(msg, "Sekr1t") || strings.Contains(msg, "root") {
			t.Errorf("ReadLayoutFile(%s): %s %q, want %q", c.path, booking.ErrorCode(err), msg, c.says)
		}
	}
	h, err := assets.ReadLayoutFile(filepath.Join(dir, "annex.hall"))
	if err != nil || h.Name != "Annex" || len(h.Seats) != 4 {
		t.Fatalf("a good layout: %+v %v", h, err)
	}
}

// ReadLayoutIn reads inside its folder only: a path, .., or a link out
// is refused, and a link inside to a FIFO is still a FIFO.
func TestReadLayoutIn(t *testing.T) {
	dir := layoutDir(t)
	for _, c := range []struct{ name, says string }{
		{"/dev/zero", "Only a file in the layouts folder is read"},
		{"../" + filepath.Base(dir) + "/annex.hall", "Only a file in the layouts folder is read"},
		{"zero.hall", "zero.hall: it leads out of the layouts folder"},
		{"pipe.hall", "pipe.hall is a named pipe, not a layout file."},
		{"fifo.hall", "fifo.hall is a named pipe, not a layout file."},
		{"big.hall", "big.hall is 100.0 MiB"},
		{"passwd", "passwd:1:1: not a hall layout"},
	} {
		_, err := readBounded(t, c.name, func() (*booking.Hall, error) { return assets.ReadLayoutIn(dir, c.name) })
		if msg := booking.ErrorMessage(err); !strings.Contains(msg, c.says) || strings.Contains(msg, "Sekr1t") {
			t.Errorf("ReadLayoutIn(%s): %q, want %q", c.name, msg, c.says)
		}
	}
	if _, err := assets.ReadLayoutIn(filepath.Join(dir, "none"), "annex.hall"); !strings.Contains(booking.ErrorMessage(err), "There is no layouts folder") {
		t.Errorf("no folder: %v", err)
	}
	if h, err := assets.ReadLayoutIn(dir, "annex.hall"); err != nil || h.Name != "Annex" {
		t.Fatalf("a good layout: %+v %v", h, err)
	}
}
