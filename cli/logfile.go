package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"boxoffice/booking"
)

// logFileRetry is how often a log that fell back to stderr tries its
// file again: once space is freed, the lines go back to the file.
const logFileRetry = time.Minute

// fallbackLog writes log lines to the data dir's log file and, while
// writing it fails (a full disk: the log lives on the database's disk,
// or any other error), to stderr instead, saying once on stderr that the
// file could not be written and why, and once that it can be again. A
// line is never lost for the file's sake. slog hands each record to one
// Write, so a line goes whole to one or the other.
type fallbackLog struct {
	mu       sync.Mutex
	file     io.Writer // nil when the file could not even be opened
	path     string
	stderr   io.Writer
	failedAt time.Time // zero while the file is written
	now      func() time.Time
}

func newFallbackLog(file io.Writer, path string, stderr io.Writer, openErr error) *fallbackLog {
	// The path is the user's, and goes to a terminal: cleaned of controls.
	l := &fallbackLog{file: file, path: booking.Clean(path), stderr: stderr, now: time.Now}
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
				fmt.Fprintf(l.stderr, "boxoffice: the log file %s is written again\n", l.path)
			}
			return len(p), nil
		}
		if l.failedAt.IsZero() {
			l.fail(err)
		} else {
			l.failedAt = l.now() // still failing: try again a period later
		}
	}
	if _, err := l.stderr.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fail notes that the file cannot be written, on stderr, once for each
// time it starts failing.
func (l *fallbackLog) fail(err error) {
	l.failedAt = l.now()
	fmt.Fprintf(l.stderr, "boxoffice: cannot write the log file %s (%v): log lines go to stderr until it can be written\n", l.path, err)
}
