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

// loadTicketKey reads the ticket signing key, generating it on first
// start. The file holds "ID:HEXSECRET" and is 0600.
func loadTicketKey(dir string) (booking.TicketKey, error) {
	path := filepath.Join(dir, ticketKeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return booking.TicketKey{}, err
		}
		line := "1:" + hex.EncodeToString(secret) + "\n"
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return loadTicketKey(dir) // another process won the race
		}
		if err != nil {
			return booking.TicketKey{}, fmt.Errorf("create ticket key: %w", err)
		}
		if _, err := f.WriteString(line); err != nil {
			f.Close()
			return booking.TicketKey{}, err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return booking.TicketKey{}, err
		}
		if err := f.Close(); err != nil {
			return booking.TicketKey{}, err
		}
		raw = []byte(line)
	} else if err != nil {
		return booking.TicketKey{}, fmt.Errorf("read ticket key: %w", err)
	}
	idText, secretHex, ok := strings.Cut(strings.TrimSpace(string(raw)), ":")
	id, err1 := strconv.ParseUint(idText, 10, 32)
	secret, err2 := hex.DecodeString(secretHex)
	if !ok || err1 != nil || err2 != nil || len(secret) < 16 {
		return booking.TicketKey{}, fmt.Errorf("%s is damaged: want ID:HEXSECRET", path)
	}
	return booking.TicketKey{ID: uint32(id), Secret: secret}, nil
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
func openData(ctx context.Context, dir, sync string, noDemo bool, logger *slog.Logger) (*opened, error) {
	if err := ensureDataDir(dir); err != nil {
		return nil, err
	}
	key, err := loadTicketKey(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, dbFile)
	// Create the file 0600 before SQLite does, so customer data is never
	// world-readable; SQLite gives its -wal and -shm files the same mode.
	if f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	store, err := db.Open(path, db.Options{Sync: sync, TicketKey: key, Logger: logger})
	if err != nil {
		return nil, err
	}
	o := &opened{dir: dir, store: store}
	empty, err := store.Empty(ctx)
	if err != nil {
		store.Close()
		return nil, err
	}
	if empty && !noDemo {
		seed, err := assets.Demo(time.Now())
		if err != nil {
			store.Close()
			return nil, err
		}
		err = store.Seed(ctx, seed, true)
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
	return o, nil
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
