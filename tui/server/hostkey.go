package server

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// HostKeyFile is the name of the server's host key in the data directory.
const HostKeyFile = "ssh_host_ed25519_key"

// loadHostKey reads the host key at path, or makes a new ed25519 key there
// (0600) when there is none. Clients pin the key on first connect, so it
// is made once and reused: a new key makes every counter warn about a
// changed host.
func loadHostKey(path string) (gossh.Signer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	signer, err := readHostKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return signer, err
	}
	if err := writeHostKey(path); err != nil {
		return nil, err
	}
	return readHostKey(path)
}

// readHostKey parses the key at path, refusing one that others may read:
// whoever holds the host key can pose as this server to every counter.
func readHostKey(path string) (gossh.Signer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("host key %s is readable by others (mode %04o); run chmod 600 on it", path, fi.Mode().Perm())
	}
	pemBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	signer, err := gossh.ParsePrivateKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	return signer, nil
}

// writeHostKey makes a new key in a temporary file and links it into
// place, so a crash never leaves half a key and two servers starting on
// one data directory end up with the same key.
func writeHostKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "boxoffice host key")
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hostkey-*")
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("host key: %w", err)
	}
	if _, err := tmp.Write(pem.EncodeToMemory(block)); err != nil {
		tmp.Close()
		return fmt.Errorf("host key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("host key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	// Link fails when the file exists: another server won the race, and
	// its key is the one to use.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("host key: %w", err)
	}
	return nil
}
