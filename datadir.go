package main

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
	"boxoffice/db"
)

// Files in the data directory.
const (
	dbFile        = "boxoffice.db"
	ticketKeyFile = "ticket_key"
	logFile       = "boxoffice.log"
)

// dataDir resolves --data, then BOXOFFICE_DATA, then the XDG data home.
func dataDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if env := os.Getenv("BOXOFFICE_DATA"); env != "" {
		return env, nil
	}
	if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" {
		return filepath.Join(xdg, "boxoffice"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no --data given and no home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "boxoffice"), nil
}

// ensureDataDir creates the directory 0700: it holds the ticket key, the
// SSH host key and customers' names.
func ensureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// loadTicketKeys reads the ticket keys, generating the first on first
// start. The file is 0600 and holds one key a line as "ID:HEXSECRET": the
// first line signs new tickets, later lines are earlier keys that still
// verify the tickets they signed (see README, Secrets).
func loadTicketKeys(dir string) (current booking.TicketKey, old []booking.TicketKey, err error) {
	path := filepath.Join(dir, ticketKeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createTicketKey(path); err != nil {
			return current, nil, err
		}
		return loadTicketKeys(dir)
	}
	if err != nil {
		return current, nil, fmt.Errorf("read ticket key: %w", err)
	}
	var keys []booking.TicketKey
	for n, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idText, secretHex, ok := strings.Cut(line, ":")
		id, err1 := strconv.ParseUint(idText, 10, 32)
		secret, err2 := hex.DecodeString(secretHex)
		if !ok || err1 != nil || err2 != nil || len(secret) < 16 {
			return current, nil, fmt.Errorf("%s:%d: want ID:HEXSECRET (at least 16 bytes of secret)", path, n+1)
		}
		keys = append(keys, booking.TicketKey{ID: uint32(id), Secret: secret})
	}
	if len(keys) == 0 {
		return current, nil, fmt.Errorf("%s holds no key", path)
	}
	return keys[0], keys[1:], nil
}

// createTicketKey writes a new random key with id 1, unless another
// process created the file first.
func createTicketKey(path string) error {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process won the race; use its key
	}
	if err != nil {
		return fmt.Errorf("create ticket key: %w", err)
	}
	if _, err := f.WriteString("1:" + hex.EncodeToString(secret) + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// opened is an open data directory.
type opened struct {
	dir    string
	store  *db.Store
	demo   bool
	seeded bool // this call created the cinema
}

// openData opens the data dir's database, creating the dir, keys and
// database when missing and loading the demo cinema into an empty one
// unless noDemo.
func openData(ctx context.Context, dir, sync string, noDemo bool, now func() time.Time, logger *slog.Logger) (*opened, error) {
	if err := ensureDataDir(dir); err != nil {
		return nil, err
	}
	key, oldKeys, err := loadTicketKeys(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, dbFile)
	// Create the file 0600 before SQLite does, so customer data is never
	// world-readable; SQLite gives its -wal and -shm files the same mode.
	if f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	store, err := db.Open(path, db.Options{Sync: sync, Clock: now, TicketKey: key, OldTicketKeys: oldKeys, Logger: logger})
	if err != nil {
		return nil, err
	}
	o := &opened{dir: dir, store: store}
	empty, err := store.Empty(ctx)
	if err != nil {
		store.Close()
		return nil, err
	}
	if empty {
		seed, err := assets.Demo(now())
		if noDemo {
			seed, err = booking.Seed{}, nil // a cinema of its own, set up by hand
		}
		if err != nil {
			store.Close()
			return nil, err
		}
		err = store.Seed(ctx, seed, !noDemo)
		if err != nil && booking.ErrorCode(err) != booking.EConflict { // conflict: another process seeded it first
			store.Close()
			return nil, err
		}
		o.seeded = err == nil
	}
	if o.demo, err = store.IsDemo(ctx); err != nil {
		store.Close()
		return nil, err
	}
	if o.demo && !o.seeded {
		// Keep a week of demo shows ahead however long ago it was made.
		if seed, err := assets.Demo(now()); err == nil {
			if _, err := store.TopUpDemo(ctx, seed); err != nil {
				logger.Warn("top up demo programme", "err", err)
			}
		}
	}
	return o, nil
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

// fileLogger appends to the data dir's log file, so nothing is ever
// written over the counter's screen.
func fileLogger(dir string) (*slog.Logger, io.Closer, error) {
	if err := ensureDataDir(dir); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, logFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(f, nil)), f, nil
}
