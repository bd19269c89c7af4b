package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"boxoffice/booking"
)

// Rotating backups: serve --backup-dir DIR --backup-every 24h --keep 14.

// backupper is the store as rotation needs it.
type backupper interface {
	Backup(ctx context.Context, path string) (booking.BackupInfo, error)
}

// rotation keeps the newest keep copies of the database in dir, one taken
// every period. It runs in a goroutine of its own and a copy reads in a
// read transaction of its own, so it never blocks a sale.
type rotation struct {
	dir   string
	every time.Duration
	keep  int
	store backupper
	log   *slog.Logger
}

// rotationName is the name of a copy taken at t, and rotationFile matches
// only such names: pruning never touches a file rotation did not make.
const rotationLayout = "20060102T150405.000Z"

var rotationFile = regexp.MustCompile(`^boxoffice-(\d{8}T\d{6}\.\d{3}Z)\.db$`)

func rotationName(t time.Time) string { return "boxoffice-" + t.UTC().Format(rotationLayout) + ".db" }

// run takes a copy when one is due — at once when the newest copy in dir
// is older than a period (or there is none), so a server restarted every
// day still backs up — and then every period, until ctx ends. A copy that
// fails is logged and tried again a period later.
func (r rotation) run(ctx context.Context) {
	wait := time.Duration(0)
	if newest, ok := r.newest(); ok {
		wait = max(0, time.Until(newest.Add(r.every)))
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.once(ctx)
		t.Reset(r.every)
	}
}

// once takes one copy and then prunes the oldest beyond keep.
func (r rotation) once(ctx context.Context) {
	path := filepath.Join(r.dir, rotationName(time.Now()))
	info, err := r.store.Backup(ctx, path)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("backup failed; trying again next period", "path", path, "err", err, "next", r.every)
		}
		return
	}
	r.log.Info("backup", "path", path, "bookings", info.Bookings, "bytes", info.Bytes, "took", info.Took.Round(time.Millisecond))
	r.prune()
}

// copies lists the copies rotation made in dir, oldest first.
func (r rotation) copies() []string {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		r.log.Warn("backup dir", "err", err)
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && rotationFile.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names) // the time in the name sorts as text
	return names
}

func (r rotation) newest() (time.Time, bool) {
	names := r.copies()
	if len(names) == 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(rotationLayout, rotationFile.FindStringSubmatch(names[len(names)-1])[1])
	return t, err == nil
}

// prune removes the oldest copies beyond keep.
func (r rotation) prune() {
	names := r.copies()
	for len(names) > r.keep {
		if err := os.Remove(filepath.Join(r.dir, names[0])); err != nil {
			r.log.Warn("remove old backup", "name", names[0], "err", err)
		}
		names = names[1:]
	}
}
