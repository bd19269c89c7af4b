package pg

import (
	"context"

	"boxoffice/booking"
)

// *Store is a whole booking.Store: every capability the counter, serve
// and the commands use works on PostgreSQL.
var _ booking.Store = (*Store)(nil)

// Backup refuses: PostgreSQL has its own backup (pg_dump, replicas), and
// boxoffice backup copies the embedded SQLite file.
func (s *Store) Backup(ctx context.Context, path string) (booking.BackupInfo, error) {
	return booking.BackupInfo{}, booking.Errorf(booking.EInvalid, "On PostgreSQL, back up with pg_dump; boxoffice backup copies the embedded SQLite file.")
}
