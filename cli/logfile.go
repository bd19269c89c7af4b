package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"

	"boxoffice/booking"
	"boxoffice/tui"
)

// logFileRetry is how often a log that fell back to stderr tries its
// file again: once space is freed, the lines go back to the file.
const logFileRetry = time.Minute

// fallbackLog writes log lines to the data dir's log file and, while
// writing it fails (a full disk: the log lives on the database's disk,
// or any other error), to the screen's ring and to stderr instead,
// saying once that the file could not be written and why, and once that
// it can be again. slog hands each record to one Write, so a line goes
// whole to one or the other.
//
// stderr is nil when it is the terminal the counter draws on: a line
// written there would be drawn over the screen. The ring (ctrl+l at the
// counter) keeps the lines then, and they go to stderr once the screen
// has closed (flush), so none is lost for the file's sake.
type fallbackLog struct {
	mu       sync.Mutex
	file     io.Writer // nil when the file could not even be opened
	path     string
	stderr   io.Writer    // nil: stderr is the screen
	ring     *tui.LogRing // nil: no screen shows the lines
	failedAt time.Time    // zero while the file is written
	now      func() time.Time
}

func newFallbackLog(file io.Writer, path string, stderr io.Writer, ring *tui.LogRing, openErr error) *fallbackLog {
	// The path is the user's, and goes to a terminal: cleaned of controls.
	l := &fallbackLog{file: file, path: booking.Clean(path), stderr: stderr, ring: ring, now: time.Now}
	if openErr != nil {
		l.file = nil
		l.fail(openErr)
	}
	return l
}

func (l *fallbackLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil && (l.failedAt.IsZero() || l.now().Sub(l.failedAt) >= logFileRetry) {
		_, err := l.file.Write(p)
		if err == nil {
			if !l.failedAt.IsZero() {
				l.failedAt = time.Time{}
				l.say(fmt.Sprintf("boxoffice: the log file %s is written again\n", l.path))
				if l.ring != nil {
					l.ring.SetProblem("", l.now())
				}
			}
			return len(p), nil
		}
		if l.failedAt.IsZero() {
			l.fail(err)
		} else {
			l.failedAt = l.now() // still failing: try again a period later
		}
	}
	if l.ring != nil {
		l.ring.Write(p)
	}
	if l.stderr != nil {
		if _, err := l.stderr.Write(p); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// fail notes that the file cannot be written, once for each time it
// starts failing.
func (l *fallbackLog) fail(err error) {
	l.failedAt = l.now()
	where := "stderr"
	if l.stderr == nil {
		where = "the counter's screen (ctrl+l)"
	}
	l.say(fmt.Sprintf("boxoffice: cannot write the log file %s (%v): log lines go to %s until it can be written\n", l.path, err, where))
	if l.ring != nil {
		l.ring.SetProblem(booking.CleanLine(err.Error(), 300), l.failedAt)
	}
}

// say writes a line about the log itself where the log lines go.
func (l *fallbackLog) say(line string) {
	if l.ring != nil {
		l.ring.Write([]byte(line))
	}
	if l.stderr != nil {
		io.WriteString(l.stderr, line)
	}
}

// flush writes the lines the ring kept instead of stderr to stderr, once
// the screen they would have been drawn over has closed.
func (l *fallbackLog) flush(stderr io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stderr != nil || l.ring == nil {
		return // stderr had them as they came
	}
	lines, dropped := l.ring.Lines()
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(stderr, "boxoffice: %d log lines the log file %s could not take", len(lines), l.path)
	if dropped > 0 {
		fmt.Fprintf(stderr, " (and %d older ones, let go)", dropped)
	}
	fmt.Fprintln(stderr, ":")
	for _, line := range lines {
		fmt.Fprintln(stderr, line)
	}
}

// screenIsStderr reports whether stderr is the terminal the screen is
// drawn on: the same terminal device, not only a terminal (stderr sent
// to another terminal does not touch the screen).
func screenIsStderr(screen, stderr io.Writer) bool {
	sf, ok1 := rawWriter(screen).(*os.File)
	ef, ok2 := rawWriter(stderr).(*os.File)
	if !ok1 || !ok2 || !term.IsTerminal(sf.Fd()) || !term.IsTerminal(ef.Fd()) {
		return false
	}
	si, err1 := sf.Stat()
	ei, err2 := ef.Stat()
	return err1 == nil && err2 == nil && os.SameFile(si, ei)
}
