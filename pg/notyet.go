package pg

import (
	"context"

	"boxoffice/booking"
)

// What is not on PostgreSQL yet. Each of these answers a clear refusal
// naming what it is, never a wrong answer, so the counter, serve and
// every command run on PostgreSQL for what works there (see the README's
// PostgreSQL section) and say so for the rest. Each line goes when its
// method is built.

var _ booking.Store = (*Store)(nil)

// notYet refuses a capability PostgreSQL does not have yet.
func notYet(what string) error {
	return booking.Errorf(booking.EInvalid, "Not available on PostgreSQL yet: %s. It works on the embedded SQLite store (no --db).", what)
}

// Backup refuses: PostgreSQL has its own backup.
func (s *Store) Backup(ctx context.Context, path string) (booking.BackupInfo, error) {
	return booking.BackupInfo{}, booking.Errorf(booking.EInvalid, "On PostgreSQL, back up with pg_dump; boxoffice backup copies the embedded SQLite file.")
}

func (s *Store) ReportTakings(ctx context.Context, actor booking.Actor, q booking.TakingsQuery) (*booking.TakingsReport, error) {
	return nil, notYet("report takings")
}
