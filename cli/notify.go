package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"boxoffice/internal/sdnotify"
)

// serve under a service manager (dist/boxoffice.service): readiness, the
// watchdog, and the journal. Outside one, each does nothing.

// notifyService sends state to the service manager, logging a failure
// (a socket that went away) rather than stopping the server for it.
func notifyService(state string, log *slog.Logger) {
	if _, err := sdnotify.Notify(state); err != nil {
		log.Warn("cannot tell the service manager", "state", state, "err", err)
	}
}

// watchdogRead bounds the store read a watchdog ping waits for: a server
// whose database does not answer within it is not pinging.
const watchdogRead = 5 * time.Second

// startWatchdog pings WATCHDOG=1 at half the interval the service manager
// asked for (WATCHDOG_USEC), each time after a read of the store came
// back: a server whose store hangs stops pinging, and the manager
// restarts it (Restart=on-failure). stop ends the pings before the store
// closes. Without a watchdog it does nothing.
func startWatchdog(store backend, log *slog.Logger) (stop func()) {
	interval, ok := sdnotify.WatchdogInterval()
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval / 2)
		defer t.Stop()
		for {
			rctx, done := context.WithTimeout(ctx, min(interval/2, watchdogRead))
			_, err := store.IsDemo(rctx)
			done()
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				log.Warn("watchdog: the store did not answer; not pinging", "err", err)
			} else {
				notifyService(sdnotify.Watchdog, log)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}

// serveLogger is serve's log: text lines on stderr, and when stderr is
// the journal (JOURNAL_STREAM names it) without a time, which the journal
// keeps itself, and with each line's level as a syslog priority, so
// journalctl -p warning finds the warnings.
func serveLogger(stderr io.Writer) *slog.Logger {
	if f, ok := rawWriter(stderr).(*os.File); ok && isJournal(f, os.Getenv("JOURNAL_STREAM")) {
		out := &journalOut{w: stderr}
		h := slog.NewTextHandler(&out.buf, &slog.HandlerOptions{ReplaceAttr: dropTime})
		return slog.New(journalHandler{h: h, out: out})
	}
	return slog.New(slog.NewTextHandler(stderr, nil))
}

// rawWriter is the writer a cleanWriter prints through, or w itself.
func rawWriter(w io.Writer) io.Writer {
	if cw, ok := w.(*cleanWriter); ok {
		return cw.w
	}
	return w
}

func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// journalHandler is a text handler whose every line starts with its
// syslog priority (<3> error … <7> debug), which journald reads off a
// stream and keeps as the entry's PRIORITY.
type journalHandler struct {
	h   slog.Handler // writes into out.buf
	out *journalOut
}

// journalOut is where the handlers of one logger write: the record is
// formatted into buf under mu and written to w whole.
type journalOut struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.Writer
}

func (j journalHandler) Enabled(ctx context.Context, l slog.Level) bool { return j.h.Enabled(ctx, l) }

func (j journalHandler) Handle(ctx context.Context, r slog.Record) error {
	j.out.mu.Lock()
	defer j.out.mu.Unlock()
	j.out.buf.Reset()
	fmt.Fprintf(&j.out.buf, "<%d>", syslogPriority(r.Level))
	if err := j.h.Handle(ctx, r); err != nil {
		return err
	}
	_, err := j.out.w.Write(j.out.buf.Bytes())
	return err
}

func (j journalHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return journalHandler{h: j.h.WithAttrs(as), out: j.out}
}

func (j journalHandler) WithGroup(name string) slog.Handler {
	return journalHandler{h: j.h.WithGroup(name), out: j.out}
}

// syslogPriority is a level's syslog priority: err, warning, info, debug.
func syslogPriority(l slog.Level) int {
	switch {
	case l >= slog.LevelError:
		return 3
	case l >= slog.LevelWarn:
		return 4
	case l >= slog.LevelInfo:
		return 6
	}
	return 7
}
