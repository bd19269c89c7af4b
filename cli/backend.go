package cli

import (
	"context"
	"os"
	"strings"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/pg"
)

// backend is the booking core a command works on: the embedded SQLite
// file in the data dir (the default), or PostgreSQL when --db or
// BOXOFFICE_DB names a server. Either way the data dir still holds the
// ticket key, the SSH host key and the log.
type backend interface {
	booking.Store
	Close() error
}

// resolveDB is --db, else BOXOFFICE_DB: the PostgreSQL server to work
// on, or "" for the embedded SQLite file (see pgAddress).
func resolveDB(flagValue string) (string, error) {
	url := flagValue
	if url == "" {
		url = os.Getenv("BOXOFFICE_DB")
	}
	if url == "" {
		return "", nil
	}
	return pgAddress("--db", url)
}

// pgAddress is value, given as flag, as the postgres:// URL the driver
// takes: white space around it dropped and its scheme in lower case.
// Anything else is refused before anything is opened, and the refusal
// shows the value with its password hidden (booking.RedactDSN), as every
// message and log line that may show an address does.
func pgAddress(flag, value string) (string, error) {
	url := strings.TrimSpace(value)
	scheme, rest, ok := strings.Cut(url, "://")
	if scheme = strings.ToLower(scheme); ok && (scheme == "postgres" || scheme == "postgresql") {
		return scheme + "://" + rest, nil
	}
	return "", usagef("%s wants a PostgreSQL URL like postgres://user@host/dbname, not %q", flag, booking.CleanLine(booking.RedactDSN(value), 120))
}

// openBackend opens the store of d: PostgreSQL at url, else the SQLite
// file, with the ticket keys of the data dir.
//
// BOXOFFICE_PHONE_COUNTRY is the country code phone numbers typed with a
// trunk 0 are in (booking.NormalPhone; docs/kiosk.md): read here, so
// every command compares phones in the same form.
func (d dataDir) openBackend(ctx context.Context, url string, opts dataOptions, key booking.TicketKey, oldKeys []booking.TicketKey) (backend, error) {
	country := os.Getenv("BOXOFFICE_PHONE_COUNTRY")
	if url != "" {
		return pg.Open(ctx, url, pg.Options{Clock: opts.now, TicketKey: key, OldTicketKeys: oldKeys, Logger: opts.logger,
			ReserveCutoff: opts.cutoff, PhoneCountry: country})
	}
	// Create the file 0600 before SQLite does, so customer data is never
	// world-readable; SQLite gives its -wal and -shm files the same mode.
	if f, err := os.OpenFile(d.dbPath(), os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	return db.Open(d.dbPath(), db.Options{Sync: opts.sync, Clock: opts.now, TicketKey: key, OldTicketKeys: oldKeys, Logger: opts.logger,
		ReserveCutoff: opts.cutoff, PhoneCountry: country})
}

// sqlite is the SQLite store of a command that works on the file itself
// (backup, restore, check's file checks, history, scale): on PostgreSQL
// it says what to use instead.
func (o *opened) sqlite(command, instead string) (*db.Store, error) {
	if s, ok := o.store.(*db.Store); ok {
		return s, nil
	}
	return nil, booking.Errorf(booking.EInvalid, "boxoffice %s works on the embedded SQLite file, not on PostgreSQL: %s.", command, instead)
}

// onSQLiteOnly refuses, before anything opens, a command that works on
// the SQLite file itself when --db or BOXOFFICE_DB names PostgreSQL.
func (c *env) onSQLiteOnly(command, instead string) error {
	url, err := resolveDB(c.dbFlag)
	if err != nil || url == "" {
		return err
	}
	return booking.Errorf(booking.EInvalid, "boxoffice %s works on the embedded SQLite file, not on PostgreSQL: %s.", command, instead)
}
