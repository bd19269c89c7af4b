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
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
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
		return nil, fmt.Errorf("read ticket key: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxTicketKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("read ticket key: %w", err)
	}
	if len(raw) > maxTicketKeyFile {
		return nil, fmt.Errorf("%s is longer than %d bytes: it is not a key file", path, maxTicketKeyFile)
	}
	return parseTicketKeys(path, string(raw))
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
// are skipped, and a file without a key is refused.
func parseTicketKeys(path, raw string) ([]booking.TicketKey, error) {
	var keys []booking.TicketKey
	for n, line := range strings.Split(raw, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idText, secretHex, ok := strings.Cut(line, ":")
		id, err1 := strconv.ParseUint(idText, 10, 32)
		secret, err2 := hex.DecodeString(secretHex)
		if !ok || err1 != nil || err2 != nil || len(secret) < 16 {
			return nil, fmt.Errorf("%s:%d: want ID:HEXSECRET (at least 16 bytes of secret)", path, n+1)
		}
		keys = append(keys, booking.TicketKey{ID: uint32(id), Secret: secret})
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no key", path)
	}
	return keys, nil
}

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
// (a full disk), the lines go to stderr instead (see fallbackLog).
func (d dataDir) openLog(stderr io.Writer) (*slog.Logger, io.Closer, error) {
	if err := d.ensure(); err != nil {
		return nil, nil, err
	}
	path := d.file(logFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	var closer io.Closer = io.NopCloser(nil)
	if err == nil {
		closer = f
	}
	return slog.New(slog.NewTextHandler(newFallbackLog(f, path, stderr, err), nil)), closer, nil
}

// dataOptions say how to open a data dir's store.
type dataOptions struct {
	sync   string // SQLite synchronous mode
	noDemo bool   // an empty cinema for a new database, not the demo one
	now    func() time.Time
	logger *slog.Logger
	cutoff time.Duration // a reservation's cut-off before its show; the default when zero
	dbURL  string        // the PostgreSQL server (--db), or "" for the SQLite file
}

// opened is an open data directory.
type opened struct {
	dir    dataDir
	store  backend
	demo   bool
	seeded bool // this call created the cinema
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
	if err != nil {
		return nil, err
	}
	o := &opened{dir: d, store: store}
	if err := o.prepare(ctx, opts); err != nil {
		store.Close()
		return nil, err
	}
	return o, nil
}

// prepare seeds an empty database (the demo cinema unless noDemo) and
// keeps the demo's week of shows ahead.
func (o *opened) prepare(ctx context.Context, opts dataOptions) error {
	empty, err := o.store.Empty(ctx)
	if err != nil {
		return err
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
	if o.demo && !o.seeded {
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
