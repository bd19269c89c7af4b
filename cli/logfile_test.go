package cli

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	l := newFallbackLog(disk, "/data/boxoffice.log", &stderr, nil)
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
	log, closer, err := dir.openLog(&stderr)
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
