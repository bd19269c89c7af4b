package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/tui"
)

// dataDir is the directory that holds one cinema: its database, the
// ticket key that signs its tickets, the SSH host key and the counter's
// log. It is created 0700 and every file in it is 0600 (README, The data
// directory).
type dataDir string

// Files in the data directory.
const (
	dbFile        = "boxoffice.db"
	ticketKeyFile = "ticket_key"
	logFile       = "boxoffice.log"
	// exportsDir is the folder the reports screen saves CSV files in.
	exportsDir = "exports"
)

// resolveDataDir is --data, else BOXOFFICE_DATA, else the XDG data home,
// else ~/.local/share/boxoffice.
func resolveDataDir(flagValue string) (dataDir, error) {
	if flagValue != "" {
		return dataDir(flagValue), nil
	}
	if env := os.Getenv("BOXOFFICE_DATA"); env != "" {
		return dataDir(env), nil
	}
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		return dataDir(filepath.Join(xdg, "boxoffice")), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no --data given and no home directory: %w", err)
	}
	return dataDir(filepath.Join(home, ".local", "share", "boxoffice")), nil
}

func (d dataDir) file(name string) string { return filepath.Join(string(d), name) }

// dbPath is the database file.
func (d dataDir) dbPath() string { return d.file(dbFile) }

// ensure creates the directory 0700: it holds the ticket key, the SSH
// host key and customers' names.
func (d dataDir) ensure() error {
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	info, err := os.Stat(string(d))
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", d)
	}
	return nil
}

// ticketKeys reads the ticket keys, generating the first on first start.
// The file is 0600 and holds one key a line as "ID:HEXSECRET": the first
// line signs new tickets, later lines are earlier keys that still verify
// the tickets they signed (see README, Secrets).
func (d dataDir) ticketKeys() (current booking.TicketKey, old []booking.TicketKey, err error) {
	keys, err := d.storedTicketKeys()
	if err == nil && keys == nil {
		if err := createTicketKey(d.file(ticketKeyFile)); err != nil {
			return current, nil, err
		}
		return d.ticketKeys()
	}
	if err != nil {
		return current, nil, err
	}
	return keys[0], keys[1:], nil
}

// maxTicketKeyFile bounds the key file read: a key a line takes under 100
// bytes, and a cinema keeps a few.
const maxTicketKeyFile = 64 << 10

// storedTicketKeys reads the key file without making one: nil when there
// is none (a data dir nothing has opened yet, or a new machine).
func (d dataDir) storedTicketKeys() ([]booking.TicketKey, error) {
	path := d.file(ticketKeyFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, keyFileUnreadable(path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxTicketKeyFile+1))
	if err != nil {
		return nil, keyFileUnreadable(path, err)
	}
	if len(raw) > maxTicketKeyFile {
		return nil, fmt.Errorf("%s is longer than %d bytes: it is not a key file", path, maxTicketKeyFile)
	}
	return parseTicketKeys(path, string(raw))
}

// keyFileUnreadable says the key file cannot be read, and why, naming its
// path once.
func keyFileUnreadable(path string, err error) error {
	why := err
	if inner := errors.Unwrap(err); inner != nil {
		why = inner
	}
	return booking.Errorf(booking.EInvalid, "The ticket key file %s cannot be read: %s.", booking.CleanLine(path, 200), booking.CleanLine(why.Error(), 200))
}

// formatTicketKeys is the key file's text for keys, the first signing.
func formatTicketKeys(keys []booking.TicketKey) string {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%d:%s\n", k.ID, hex.EncodeToString(k.Secret))
	}
	return b.String()
}

// writeTicketKeys replaces the key file with keys (the first signs new
// tickets, the rest still verify theirs): written and synced under a
// temporary name in the data dir, renamed into place and the directory
// synced, so the file is at every moment the old keys or the new ones.
func (d dataDir) writeTicketKeys(keys []booking.TicketKey) error {
	if err := d.ensure(); err != nil {
		return err
	}
	f, err := os.CreateTemp(string(d), ".ticket_key-*")
	if err != nil {
		return fmt.Errorf("write ticket key: %w", err)
	}
	defer os.Remove(f.Name())
	if err := writeSynced(f, formatTicketKeys(keys)); err != nil {
		return fmt.Errorf("write ticket key: %w", err)
	}
	if err := os.Rename(f.Name(), d.file(ticketKeyFile)); err != nil {
		return fmt.Errorf("write ticket key: %w", err)
	}
	return syncDir(string(d))
}

// syncDir syncs a directory, so a name just made in it survives a power cut.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

// parseTicketKeys reads the key file's lines; blank lines and # comments
// are skipped, and a file without a key is refused. A refusal says where
// the file is, which line is wrong and what a line should be, and never
// repeats what the line holds: it may be most of a secret.
func parseTicketKeys(path, raw string) ([]booking.TicketKey, error) {
	var keys []booking.TicketKey
	name := booking.CleanLine(path, 200)
	for n, line := range strings.Split(raw, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idText, secretHex, ok := strings.Cut(line, ":")
		id, err1 := strconv.ParseUint(strings.TrimSpace(idText), 10, 32)
		secret, err2 := hex.DecodeString(strings.TrimSpace(secretHex))
		var why string
		switch {
		case !ok:
			why = "it has no colon"
		case err1 != nil:
			why = "what comes before the colon is not a key number"
		case err2 != nil:
			why = "what comes after the colon is not hexadecimal"
		case len(secret) < 16:
			why = fmt.Sprintf("its secret is %d bytes, and a key needs at least 16", len(secret))
		}
		if why != "" {
			return nil, booking.Errorf(booking.EInvalid, "The ticket key file %s is damaged: line %d is not a key (%s). "+ticketKeyForm, name, n+1, why)
		}
		keys = append(keys, booking.TicketKey{ID: uint32(id), Secret: secret})
	}
	if len(keys) == 0 {
		return nil, booking.Errorf(booking.EInvalid, "The ticket key file %s holds no key. "+ticketKeyForm, name)
	}
	return keys, nil
}

// ticketKeyForm says what the ticket key file holds and how to mend it,
// after a refusal of it.
const ticketKeyForm = "Each line is ID:HEXSECRET, like 1:followed-by-64-hex-digits, the first signing new tickets. " +
	"Put the file back from your copy of it: a new key would stop every ticket already sold from admitting."

// createTicketKey writes a new random key with id 1, unless another
// process created the file first. The key is written and synced under a
// temporary name and then linked into place, so a process starting at the
// same moment never reads a file that exists but is still empty.
func createTicketKey(path string) error {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".ticket_key-*")
	if err != nil {
		return fmt.Errorf("create ticket key: %w", err)
	}
	defer os.Remove(f.Name())
	if err := writeSynced(f, "1:"+hex.EncodeToString(secret)+"\n"); err != nil {
		return fmt.Errorf("create ticket key: %w", err)
	}
	err = os.Link(f.Name(), path)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process won the race; use its key
	}
	if err != nil {
		return fmt.Errorf("create ticket key: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// writeSynced writes text to f (made 0600 by os.CreateTemp), syncs and
// closes it.
func writeSynced(f *os.File, text string) error {
	_, err := f.WriteString(text)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openLog appends to the data dir's log file, so nothing is ever written
// over the counter's screen; when the file cannot be opened or written
// (a full disk), the lines go to ring and to stderr (nil: stderr is the
// screen) instead (see fallbackLog).
func (d dataDir) openLog(stderr io.Writer, ring *tui.LogRing) (*slog.Logger, *fallbackLog, io.Closer, error) {
	if err := d.ensure(); err != nil {
		return nil, nil, nil, err
	}
	path := d.file(logFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	var closer io.Closer = io.NopCloser(nil)
	if err == nil {
		closer = f
	}
	fl := newFallbackLog(f, path, stderr, ring, err)
	return slog.New(slog.NewTextHandler(fl, nil)), fl, closer, nil
}

// dataOptions say how to open a data dir's store.
type dataOptions struct {
	sync   string // SQLite synchronous mode
	noDemo bool   // an empty cinema for a new database, not the demo one
	now    func() time.Time
	logger *slog.Logger
	cutoff time.Duration // a reservation's cut-off before its show; the default when zero
	dbURL  string        // the PostgreSQL server (--db), or "" for the SQLite file

	// readOnlyOK lets a disk too full to open the SQLite file the usual
	// way open it for reading only: a command's reads still work
	// (withData says the disk is full after them), its writes say the
	// disk is full. A screen or a server, which would stay read-only after
	// space is freed, refuses instead.
	readOnlyOK bool
}

// opened is an open data directory.
type opened struct {
	dir      dataDir
	store    backend
	demo     bool
	seeded   bool // this call created the cinema
	readOnly bool // opened for reading only: the disk is full
}

// nearlyFull is the room under which the data dir's disk counts as full
// when opening the database fails: SQLite needs 32 KiB for the WAL index
// before it reads a page, and a sale some pages more.
const nearlyFull = 1 << 20

// full reports whether the disk holding d has less room than nearlyFull.
func (d dataDir) full() bool {
	free, ok := freeBytes(string(d))
	return ok && free < nearlyFull
}

// diskFull names the full disk, in the words every full-disk refusal
// starts with.
func (d dataDir) diskFull() error {
	return booking.Errorf(booking.EDiskFull, "The disk is full: no room left for %s. Free space and try again.", booking.CleanLine(string(d), 200))
}

// nameFullDisk gives an error that is no domain error (an I/O error, a
// file that could not be made) the full disk's name and code when that is
// what it is: ENOSPC, or, on the SQLite file, the data dir's disk full.
// Every command's error passes here, so none says "Internal error." for a
// full disk.
func (c *env) nameFullDisk(err error) error {
	var usage *UsageError
	var already *shownError
	if err == nil || booking.ErrorCode(err) != booking.EInternal || errors.As(err, &usage) || errors.As(err, &already) {
		return err
	}
	dir, derr := resolveDataDir(c.dataFlag)
	if derr != nil {
		return err
	}
	if errors.Is(err, syscall.ENOSPC) {
		return dir.diskFull()
	}
	if url, _ := resolveDB(c.dbFlag); url == "" && dir.full() {
		return dir.diskFull()
	}
	return err
}

// open opens the database, creating the dir, keys and database when
// missing and loading the demo cinema into an empty one unless noDemo.
func (d dataDir) open(ctx context.Context, opts dataOptions) (*opened, error) {
	if err := d.ensure(); err != nil {
		return nil, err
	}
	key, oldKeys, err := d.ticketKeys()
	if err != nil {
		return nil, err
	}
	store, err := d.openBackend(ctx, opts.dbURL, opts, key, oldKeys)
	readOnly := false
	if err != nil && opts.dbURL == "" && d.full() {
		store, err = d.openReadOnly(opts, key, oldKeys)
		readOnly = err == nil
	}
	if err != nil {
		return nil, err
	}
	o := &opened{dir: d, store: store, readOnly: readOnly}
	if err := o.prepare(ctx, opts); err != nil {
		store.Close()
		return nil, err
	}
	return o, nil
}

// openReadOnly opens the SQLite file for reading only on a disk too full
// to open it the usual way (see dataOptions.readOnlyOK), or names the
// full disk.
func (d dataDir) openReadOnly(opts dataOptions, key booking.TicketKey, oldKeys []booking.TicketKey) (backend, error) {
	if !opts.readOnlyOK {
		return nil, d.diskFull()
	}
	store, err := db.OpenReadOnly(d.dbPath(), db.Options{Clock: opts.now, TicketKey: key, OldTicketKeys: oldKeys, Logger: opts.logger,
		ReserveCutoff: opts.cutoff, PhoneCountry: os.Getenv("BOXOFFICE_PHONE_COUNTRY")})
	if err != nil {
		if booking.ErrorCode(err) == booking.EInvalid {
			return nil, err // not a database it can use, full disk or not
		}
		return nil, d.diskFull()
	}
	return store, nil
}

// warnReadOnly says, after a command's reads worked on a full disk,
// that nothing could have been saved.
func (c *env) warnReadOnly(d dataDir) {
	fmt.Fprintf(c.stderr, "boxoffice: %s Read only until then: nothing can be saved.\n", booking.ErrorMessage(d.diskFull()))
}

// prepare seeds an empty database (the demo cinema unless noDemo) and
// keeps the demo's week of shows ahead.
func (o *opened) prepare(ctx context.Context, opts dataOptions) error {
	empty, err := o.store.Empty(ctx)
	if err != nil {
		return err
	}
	if empty && o.readOnly {
		return o.dir.diskFull() // a new cinema needs room
	}
	if empty {
		seed, err := assets.Demo(opts.now())
		if opts.noDemo {
			seed, err = booking.Seed{}, nil // a cinema of its own, set up by hand
		}
		if err != nil {
			return err
		}
		err = o.store.Seed(ctx, seed, !opts.noDemo)
		if err != nil && booking.ErrorCode(err) != booking.EConflict { // conflict: another process seeded it first
			return err
		}
		o.seeded = err == nil
	}
	if o.demo, err = o.store.IsDemo(ctx); err != nil {
		return err
	}
	if o.demo && !o.seeded && !o.readOnly {
		// Keep a week of demo shows ahead however long ago it was made.
		if seed, err := assets.Demo(opts.now()); err == nil {
			if _, err := o.store.TopUpDemo(ctx, seed); err != nil {
				opts.logger.Warn("top up demo programme", "err", err)
			}
		}
	}
	return nil
}

// demoHint is the sign-in hint of the demo cinema (its manager and PIN)
// while that PIN still works; none in a cinema of its own or once the
// demo manager's PIN was changed.
func (o *opened) demoHint(ctx context.Context) booking.Credentials {
	if !o.demo {
		return booking.Credentials{}
	}
	if ok, err := o.store.PINUnchanged(ctx, assets.DemoUser); err != nil || !ok {
		return booking.Credentials{}
	}
	return booking.Credentials{Name: assets.DemoUser, PIN: assets.DemoPIN}
}
