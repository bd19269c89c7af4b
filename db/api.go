package db

// This file is a temporary skeleton so that other packages compile while
// the store is written. Every body is replaced by the real one.

import (
	"context"
	"log/slog"
	"time"

	"boxoffice/booking"
)

// Options tune how the store opens its database.
type Options struct {
	// Sync is "full" (default: a sold seat survives power loss) or "normal".
	Sync string
	// Clock is the time source, fixed once per transaction; time.Now when nil.
	Clock func() time.Time
	// TicketKey signs ticket codes.
	TicketKey booking.TicketKey
	// Logger receives internal errors; discarded when nil.
	Logger *slog.Logger
	// PollInterval is how often PRAGMA data_version is polled for writes by
	// other processes; 100ms when zero.
	PollInterval time.Duration
}

// Store implements booking.Store on SQLite.
type Store struct{}

// var _ booking.Store = (*Store)(nil) — restored when the store is written.

// Open opens (creating and migrating if needed) the database at path.
func Open(path string, opts Options) (*Store, error) { panic("unwritten") }

// Close stops the writer and poller and closes the database.
func (s *Store) Close() error { panic("unwritten") }

// Empty reports whether the database has no halls yet (a fresh file).
func (s *Store) Empty(ctx context.Context) (bool, error) { panic("unwritten") }

// Seed fills an empty database with halls, films, prices, shows and staff.
// It is one transaction; seeding a database that has halls is EConflict.
func (s *Store) Seed(ctx context.Context, seed booking.Seed, demo bool) error { panic("unwritten") }

// IsDemo reports whether the database was seeded with the demo cinema.
func (s *Store) IsDemo(ctx context.Context) (bool, error) { panic("unwritten") }

// AddStaff creates a member of staff with a PIN and optionally an SSH public
// key (authorized_keys format). EConflict when the name or key exists.
func (s *Store) AddStaff(ctx context.Context, actor booking.Actor, name string, role booking.Role, pin string, authorizedKey []byte) (*booking.Staff, error) {
	panic("unwritten")
}

// ListStaff lists staff by name.
func (s *Store) ListStaff(ctx context.Context, actor booking.Actor) ([]booking.Staff, error) {
	panic("unwritten")
}

// DisableStaff stops a member of staff signing in by PIN or key. ENotFound.
func (s *Store) DisableStaff(ctx context.Context, actor booking.Actor, name string) error {
	panic("unwritten")
}

// AddTerminal registers a counter device key. EConflict when it exists.
func (s *Store) AddTerminal(ctx context.Context, actor booking.Actor, name string, authorizedKey []byte) (*booking.Terminal, error) {
	panic("unwritten")
}

// ListTerminals lists registered terminals.
func (s *Store) ListTerminals(ctx context.Context, actor booking.Actor) ([]booking.Terminal, error) {
	panic("unwritten")
}

// RemoveTerminal deletes a terminal key. ENotFound.
func (s *Store) RemoveTerminal(ctx context.Context, actor booking.Actor, name string) error {
	panic("unwritten")
}

// IdentifyKey finds who an SSH public key (wire format, ssh.PublicKey.Marshal)
// belongs to: a staff member (enabled only) or a terminal. ENotFound otherwise.
func (s *Store) IdentifyKey(ctx context.Context, wireKey []byte) (*booking.Staff, *booking.Terminal, error) {
	panic("unwritten")
}
