package cli

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"boxoffice/tui"
)

// fullDisk is a log file on a disk that is full until freed.
type fullDisk struct {
	full  bool
	lines bytes.Buffer
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if d.full {
		return 0, &os.PathError{Op: "write", Path: "boxoffice.log", Err: syscall.ENOSPC}
	}
	return d.lines.Write(p)
}

// A log file that cannot be written sends every line to stderr, says
// once why, and goes back to the file a period after space is freed.
func TestFallbackLog_FullDisk(t *testing.T) {
	t.Parallel()
	disk := &fullDisk{}
	var stderr bytes.Buffer
	l := newFallbackLog(disk, "/data/boxoffice.log", &stderr, nil, nil)
	now := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	log := slog.New(slog.NewTextHandler(l, nil))

	log.Info("before", "n", 1)
	disk.full = true
	log.Error("internal error", "op", "checkout", "err", "disk full")
	log.Warn("hold not released", "hold", 7)
	if !strings.Contains(disk.lines.String(), "msg=before") || strings.Contains(disk.lines.String(), "checkout") {
		t.Fatalf("log file: %q", disk.lines.String())
	}
	got := stderr.String()
	for _, want := range []string{"op=checkout", "hold=7", "cannot write the log file /data/boxoffice.log", "no space left on device"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "cannot write the log file"); n != 1 {
		t.Errorf("the failure said %d times, want once:\n%s", n, got)
	}

	// Space freed: within a retry period the lines still go to stderr,
	// after it to the file again, said once.
	disk.full = false
	now = now.Add(logFileRetry / 2)
	log.Info("still on stderr")
	now = now.Add(logFileRetry)
	log.Info("back in the file")
	if !strings.Contains(stderr.String(), "still on stderr") || strings.Contains(stderr.String(), "msg=\"back in the file\"") {
		t.Fatalf("stderr after space was freed:\n%s", stderr.String())
	}
	if !strings.Contains(disk.lines.String(), "back in the file") || !strings.Contains(stderr.String(), "is written again") {
		t.Fatalf("the file after space was freed: %q; stderr %q", disk.lines.String(), stderr.String())
	}
}

// A log file that cannot even be opened (here a directory stands in its
// place) leaves the counter its log, on stderr, rather than refusing.
func TestDataDir_OpenLogFallsBack(t *testing.T) {
	t.Parallel()
	dir := dataDir(t.TempDir())
	if err := os.Mkdir(filepath.Join(string(dir), logFile), 0o700); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	log, _, closer, err := dir.openLog(&stderr, nil)
	if err != nil {
		t.Fatalf("openLog with the log file unopenable: %v", err)
	}
	defer closer.Close()
	log.Warn("a line", "k", "v")
	if got := stderr.String(); !strings.Contains(got, "cannot write the log file") || !strings.Contains(got, "k=v") {
		t.Fatalf("stderr: %q", got)
	}
	var pe *os.PathError
	if _, err := os.OpenFile(filepath.Join(string(dir), logFile), os.O_WRONLY, 0); !errors.As(err, &pe) {
		t.Fatalf("the stand-in directory opened as a file: %v", err)
	}
}

// When stderr is the counter's screen, the lines the file cannot take
// go to the ring only (ctrl+l shows them), and to stderr once the screen
// has closed (flush): never over the screen, never lost.
func TestFallbackLog_ScreenIsStderr(t *testing.T) {
	disk := &fullDisk{full: true}
	ring := tui.NewLogRing()
	l := newFallbackLog(disk, "/data/boxoffice.log", nil, ring, nil)
	log := slog.New(slog.NewTextHandler(l, nil))
	log.Error("internal error", "op", "checkout", "err", "disk full")
	lines, _ := ring.Lines()
	if len(lines) != 2 || !strings.Contains(lines[0], "log lines go to the counter's screen (ctrl+l)") || !strings.Contains(lines[1], "op=checkout") {
		t.Fatalf("ring: %q", lines)
	}
	var after bytes.Buffer
	l.flush(&after)
	if got := after.String(); !strings.HasPrefix(got, "boxoffice: 2 log lines the log file /data/boxoffice.log could not take:\n") || !strings.Contains(got, "op=checkout") {
		t.Fatalf("flushed: %q", got)
	}
	// With stderr apart from the screen the lines went there as they
	// came, and flush writes nothing more.
	var stderr bytes.Buffer
	l = newFallbackLog(disk, "/data/boxoffice.log", &stderr, tui.NewLogRing(), nil)
	slog.New(slog.NewTextHandler(l, nil)).Warn("a line")
	after.Reset()
	l.flush(&after)
	if !strings.Contains(stderr.String(), "a line") || after.Len() != 0 {
		t.Fatalf("stderr %q, flushed %q", stderr.String(), after.String())
	}
}

// stderr is the screen only when both are the same terminal.
func TestScreenIsStderr(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	again, err := os.OpenFile(tty.Name(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	other, otherTTY, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	defer otherTTY.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		name           string
		screen, stderr any
		want           bool
	}{
		{"SameTerminal", tty, newCleanWriter(again), true},
		{"AnotherTerminal", tty, newCleanWriter(otherTTY), false},
		{"StderrToAFile", tty, newCleanWriter(file), false},
		{"ScreenNotATerminal", &bytes.Buffer{}, newCleanWriter(tty), false},
	} {
		if got := screenIsStderr(c.screen.(io.Writer), c.stderr.(io.Writer)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
