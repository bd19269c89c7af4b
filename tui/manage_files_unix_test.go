//go:build unix

package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"boxoffice/booking"
)

// The manager's "add a hall from a layout file" reads its layouts folder
// only, and only a small regular file there: /dev/zero, a FIFO with no
// writer, a 100 MB file, a link out of the folder and a file that is not
// a layout are each refused on the form at once, without a word of what
// they hold, and the counter goes on to add a good hall.
func TestManage_HallFileRefusals(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "mgr-files", 100, 24)
	dir := t.TempDir()
	m.opts.LayoutsDir = dir
	for name, body := range map[string]string{"annex.hall": "hall: Annex\n\nA | ssss\n", "passwd": "root:x:0:0:Sekr1tWord:/root:/bin/sh\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.hall"), 0o600); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "big.hall"))
	if err == nil {
		err = big.Truncate(100 << 20)
		big.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.hall")); err != nil {
		t.Fatal(err)
	}

	openManager(t, m, "2")
	for _, c := range []struct{ name, says string }{
		{"/dev/zero", "Only a file in the layouts folder is read"},
		{"zero.hall", "zero.hall: it leads out of the layouts folder"},
		{"fifo.hall", "fifo.hall is a named pipe, not a layout file."},
		{"big.hall", "big.hall is 100.0 MiB: a hall layout is at most 64 KiB."},
		{"passwd", "passwd:1:1: not a hall layout"},
	} {
		press(t, m, "a")
		typeText(t, m, c.name)
		press(t, m, "enter")
		onScreen(t, m, c.says)
		if text := screenText(m); strings.Contains(text, "Sekr1t") || strings.Contains(text, "root") {
			t.Fatalf("%s: the screen shows the file:\n%s", c.name, text)
		}
		press(t, m, "esc")
	}
	press(t, m, "a")
	typeText(t, m, "annex.hall")
	press(t, m, "enter")
	halls, err := s.Halls(context.Background(), booking.System)
	if err != nil || len(halls) != 4 {
		t.Fatalf("halls after the refusals and a good file: %d %v", len(halls), err)
	}
	onScreen(t, m, "Annex")
}

// Without a layouts folder the form does not open: nothing is read.
func TestManage_HallFileNoFolder(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "mgr-nofolder", 100, 24)
	openManager(t, m, "2")
	press(t, m, "a")
	if m.manage.form != nil {
		t.Fatal("the form opened without a layouts folder")
	}
	onScreen(t, m, "this counter has none")
}
