package cli

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/scrypt"

	"boxoffice/booking"
)

// The ticket keys off the machine: sealed with a passphrase (scrypt, then
// XChaCha20-Poly1305), in a backup (backup --with-key) or a file of their
// own (key export), and opened again on a new machine (restore, key
// import). They never leave the data dir in the clear.

const keyLong = `The ticket key signs every ticket code: without it, the tickets a cinema
has sold get "Unknown ticket code." at the door. It lives in the data dir
(ticket_key, 0600) and leaves it only sealed with a passphrase:

  key export FILE   writes the data dir's ticket keys to FILE, sealed
  key import FILE   adds the keys sealed in FILE to the data dir's: they
                    sign new tickets, and the keys it had still verify
                    theirs (stop serve and the counters first)

backup FILE --with-key puts the sealed keys into the backup itself, and
restore offers them to a data dir that lacks them. The passphrase is read
from the terminal without echo, from --passphrase-file FILE (its first
line) or from BOXOFFICE_PASSPHRASE; never from the command line. Keep it
apart from the file: either alone is useless.`

func keyCommand() *command {
	return &command{name: "key", long: keyLong, missing: "usage: boxoffice key export FILE | key import FILE", subs: []*command{
		{name: "export", args: "FILE [--passphrase-file F]", short: "the ticket keys, sealed with a passphrase, to FILE", long: keyLong, flags: keyFlags((*env).keyExport)},
		{name: "import", args: "FILE [--passphrase-file F]", short: "add the ticket keys sealed in FILE to this data dir", long: keyLong, flags: keyFlags((*env).keyImport)},
	}}
}

func keyFlags(run func(*env, []string, string) error) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		pass := passphraseFlag(fs)
		return func(c *env, pos []string) error { return run(c, pos, *pass) }
	}
}

// passphraseFlag defines --passphrase-file, the same on every command.
func passphraseFlag(fs *flag.FlagSet) *string {
	return fs.String("passphrase-file", "", "read the ticket keys' passphrase from the first line of `FILE`")
}

// keyExport seals the data dir's ticket keys into a new file.
func (c *env) keyExport(pos []string, passFile string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice key export FILE")
	}
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return err
	}
	keys, err := dir.storedTicketKeys()
	if err != nil {
		return err
	}
	if keys == nil {
		return booking.Errorf(booking.ENotFound, "There is no ticket key in %s to export.", string(dir))
	}
	if err := refuseExistingFile(pos[0], "an export"); err != nil {
		return err
	}
	pass, err := c.passphrase(passFile, true)
	if err != nil {
		return err
	}
	sealed, err := sealKeys(keys, pass)
	if err != nil {
		return err
	}
	if err := writeNewFile(pos[0], sealed); err != nil {
		return err
	}
	c.say("Exported %s (%s) to %s, sealed with the passphrase.", nOf(int64(len(keys)), "ticket key"), keyList(keys), pos[0])
	c.say("Keep the file and the passphrase apart; either alone opens nothing. boxoffice key import FILE puts the keys into a new data dir.")
	return nil
}

// keyImport adds the keys sealed in a file to the data dir's.
func (c *env) keyImport(pos []string, passFile string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice key import FILE")
	}
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return err
	}
	text, err := readBounded(pos[0], maxSealedFile)
	if err != nil {
		return err
	}
	box, err := parseSealed(text, pos[0])
	if err != nil {
		return err
	}
	have, err := dir.storedTicketKeys()
	if err != nil {
		return err
	}
	if box.heldBy(have) {
		c.say("%s already holds the ticket keys sealed in %s (%s); nothing was changed.", string(dir), pos[0], strings.Join(box.Keys, ", "))
		return nil
	}
	pass, err := c.passphrase(passFile, false)
	if err != nil {
		return err
	}
	keys, err := box.open(pass, pos[0])
	if err != nil {
		return err
	}
	release, err := dir.lock(true)
	if errors.Is(err, errLocked) {
		return booking.Errorf(booking.EConflict, "A server or a counter has %s open (it reads the ticket keys when it starts): stop it before importing. Nothing was changed.", string(dir))
	}
	if err != nil {
		return err
	}
	defer release()
	if have, err = dir.storedTicketKeys(); err != nil {
		return err
	}
	merged := mergeKeys(keys, have)
	if err := dir.writeTicketKeys(merged); err != nil {
		return err
	}
	c.say("Imported %s (%s) into %s: %s", nOf(int64(len(keys)), "ticket key"), keyList(keys), string(dir), keysOutcome(keys, have))
	return nil
}

// keysOutcome says what adding keys before have means at the door.
func keysOutcome(keys, have []booking.TicketKey) string {
	if len(have) == 0 {
		return "they sign new tickets and verify the ones they signed."
	}
	if len(have) == 1 {
		return fmt.Sprintf("they sign new tickets; the data dir's own key (%s) still verifies the tickets it signed.", keyList(have))
	}
	return fmt.Sprintf("they sign new tickets; the data dir's own keys (%s) still verify the tickets they signed.", keyList(have))
}

// mergeKeys is first, then each key of then that first lacks: the first
// key signs, every one verifies. Two keys may share an id (two machines
// each made its key 1): a code is tried against every key of its id.
func mergeKeys(first, then []booking.TicketKey) []booking.TicketKey {
	out := slices.Clone(first)
	for _, k := range then {
		if !slices.ContainsFunc(out, func(o booking.TicketKey) bool { return sameKey(o, k) }) {
			out = append(out, k)
		}
	}
	return out
}

func sameKey(a, b booking.TicketKey) bool {
	return a.ID == b.ID && hmac.Equal(a.Secret, b.Secret)
}

// fingerprint names a key without giving it away: its id and the first
// 8 bytes of an HMAC under it, so two machines' keys can be compared (and
// a restore can tell whether the data dir already holds a backup's keys
// before asking for the passphrase).
func fingerprint(k booking.TicketKey) string {
	h := hmac.New(sha256.New, k.Secret)
	h.Write([]byte("boxoffice ticket key fingerprint"))
	return fmt.Sprintf("%d:%s", k.ID, hex.EncodeToString(h.Sum(nil)[:8]))
}

// fingerprints are the keys' fingerprints, nil for none.
func fingerprints(keys []booking.TicketKey) []string {
	var out []string
	for _, k := range keys {
		out = append(out, fingerprint(k))
	}
	return out
}

func keyList(keys []booking.TicketKey) string { return strings.Join(fingerprints(keys), ", ") }

// The sealed form, version 1: the key file's text sealed with
// XChaCha20-Poly1305 under a key derived from the passphrase with scrypt
// (N=2^15, r=8, p=1: 32 MiB and a fraction of a second, per guess). The
// fingerprints travel in the clear and are bound to the ciphertext as its
// additional data.
const (
	sealedFormat  = "boxoffice ticket keys"
	sealedVersion = 1
	sealedKDF     = "scrypt N=32768 r=8 p=1"
	sealedCipher  = "xchacha20poly1305"
	saltSize      = 16
	// maxSealedFile bounds a sealed file read (key import): a few keys
	// take under a kilobyte.
	maxSealedFile = 64 << 10
	maxKeys       = 100
)

type sealedKeys struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Keys    []string `json:"keys"`
	KDF     string   `json:"kdf"`
	Salt    []byte   `json:"salt"`
	Cipher  string   `json:"cipher"`
	Nonce   []byte   `json:"nonce"`
	Sealed  []byte   `json:"sealed"`
}

// additional is the data the cipher binds to the sealed keys.
func (s *sealedKeys) additional() []byte {
	return fmt.Appendf(nil, "%s v%d %s", s.Format, s.Version, strings.Join(s.Keys, ","))
}

func deriveKey(pass, salt []byte) ([]byte, error) {
	return scrypt.Key(pass, salt, 1<<15, 8, 1, chacha20poly1305.KeySize)
}

// sealKeys seals keys with pass: the text of a sealed file.
func sealKeys(keys []booking.TicketKey, pass []byte) (string, error) {
	s := &sealedKeys{Format: sealedFormat, Version: sealedVersion, KDF: sealedKDF, Cipher: sealedCipher,
		Salt: make([]byte, saltSize), Nonce: make([]byte, chacha20poly1305.NonceSizeX)}
	for _, k := range keys {
		s.Keys = append(s.Keys, fingerprint(k))
	}
	rand.Read(s.Salt)
	rand.Read(s.Nonce)
	key, err := deriveKey(pass, s.Salt)
	if err != nil {
		return "", err
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return "", err
	}
	s.Sealed = aead.Seal(nil, s.Nonce, []byte(formatTicketKeys(keys)), s.additional())
	out, err := json.MarshalIndent(s, "", "  ")
	return string(out) + "\n", err
}

// parseSealed reads a sealed file's text (from where, for messages),
// refusing anything but the form sealKeys writes.
func parseSealed(text, where string) (*sealedKeys, error) {
	bad := func(why string) error {
		return booking.Errorf(booking.EInvalid, "%s does not hold ticket keys sealed by boxoffice (%s).", booking.CleanLine(where, 200), why)
	}
	if len(text) > maxSealedFile {
		return nil, bad("too long")
	}
	var s sealedKeys
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, bad("not its JSON")
	}
	switch {
	case s.Format != sealedFormat:
		return nil, bad("no format line")
	case s.Version != sealedVersion || s.KDF != sealedKDF || s.Cipher != sealedCipher:
		return nil, bad("a version or a cipher this boxoffice does not know")
	case len(s.Salt) != saltSize || len(s.Nonce) != chacha20poly1305.NonceSizeX || len(s.Sealed) <= chacha20poly1305.Overhead:
		return nil, bad("damaged")
	case len(s.Keys) == 0 || len(s.Keys) > maxKeys:
		return nil, bad("no keys")
	}
	return &s, nil
}

// heldBy says whether have already holds every key sealed in s.
func (s *sealedKeys) heldBy(have []booking.TicketKey) bool {
	held := map[string]bool{}
	for _, k := range have {
		held[fingerprint(k)] = true
	}
	for _, f := range s.Keys {
		if !held[f] {
			return false
		}
	}
	return true
}

// errPassphrase is a passphrase that does not open the keys.
func errPassphrase(where string) error {
	return booking.Errorf(booking.EInvalid, "The passphrase does not open the ticket keys in %s; nothing was written.", booking.CleanLine(where, 200))
}

// open unseals the keys with pass, checking them against the
// fingerprints that came with them.
func (s *sealedKeys) open(pass []byte, where string) ([]booking.TicketKey, error) {
	key, err := deriveKey(pass, s.Salt)
	if err != nil {
		return nil, err
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, s.Nonce, s.Sealed, s.additional())
	if err != nil {
		return nil, errPassphrase(where)
	}
	keys, err := parseTicketKeys(where, string(plain))
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if i >= len(s.Keys) || fingerprint(k) != s.Keys[i] {
			return nil, booking.Errorf(booking.EInvalid, "The ticket keys in %s do not match the fingerprints beside them; nothing was written.", booking.CleanLine(where, 200))
		}
	}
	return keys, nil
}

// passphraseEnv is the environment variable scripts may give the
// passphrase in.
const passphraseEnv = "BOXOFFICE_PASSPHRASE"

// Passphrases: at least minPassphrase characters to seal (a guess costs
// scrypt's fraction of a second, so length is what protects), at most
// maxPassphrase bytes read.
const (
	minPassphrase = 10
	maxPassphrase = 1024
)

// passphrase reads the ticket keys' passphrase: from the first line of
// file, else from BOXOFFICE_PASSPHRASE, else from the terminal without
// echo (twice when sealing). Never from the command line, where ps and the
// shell's history show it.
func (c *env) passphrase(file string, sealing bool) ([]byte, error) {
	var pass []byte
	switch {
	case file != "":
		raw, err := readBounded(file, maxPassphrase+2)
		if err != nil {
			return nil, err
		}
		line, _, _ := strings.Cut(raw, "\n")
		pass = []byte(strings.TrimRight(line, "\r"))
	case os.Getenv(passphraseEnv) != "":
		pass = []byte(os.Getenv(passphraseEnv))
	default:
		var err error
		if pass, err = c.askPassphrase(sealing); err != nil {
			return nil, err
		}
	}
	switch {
	case len(pass) == 0:
		return nil, usagef("the passphrase is empty")
	case len(pass) > maxPassphrase:
		return nil, usagef("the passphrase is longer than %d bytes", maxPassphrase)
	case sealing && len([]rune(string(pass))) < minPassphrase:
		return nil, usagef("the passphrase must be at least %d characters long", minPassphrase)
	}
	return pass, nil
}

// askPassphrase reads the passphrase at the terminal without echo.
func (c *env) askPassphrase(twice bool) ([]byte, error) {
	f, ok := c.stdin.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return nil, usagef("the ticket keys need their passphrase: type it at a terminal, or give --passphrase-file FILE or %s (never on the command line)", passphraseEnv)
	}
	read := func(prompt string) ([]byte, error) {
		fmt.Fprint(c.stderr, prompt)
		p, err := term.ReadPassword(f.Fd())
		fmt.Fprintln(c.stderr)
		if err != nil {
			return nil, fmt.Errorf("read the passphrase: %w", err)
		}
		return bytes.TrimRight(p, "\r\n"), nil
	}
	pass, err := read("Passphrase for the ticket keys: ")
	if err != nil || !twice {
		return pass, err
	}
	again, err := read("The same passphrase again: ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(pass, again) {
		return nil, usagef("the two passphrases differ; nothing was written")
	}
	return pass, nil
}

// readBounded reads a file of at most max bytes.
func readBounded(path string, max int64) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", booking.Errorf(booking.ENotFound, "There is no file %s.", booking.CleanLine(path, 200))
	}
	if err != nil {
		return "", booking.Errorf(booking.EInternal, "Cannot read %s: %v", booking.CleanLine(path, 200), errors.Unwrap(err))
	}
	defer f.Close()
	raw, err := io.ReadAll(bufio.NewReader(io.LimitReader(f, max+1)))
	if err != nil {
		return "", booking.Errorf(booking.EInternal, "Cannot read %s: %v", booking.CleanLine(path, 200), err)
	}
	if int64(len(raw)) > max {
		return "", booking.Errorf(booking.EInvalid, "%s is longer than %d bytes.", booking.CleanLine(path, 200), max)
	}
	return string(raw), nil
}

// refuseExistingFile refuses a path that exists before what (a backup,
// an export) asks for a passphrase: neither ever overwrites a file.
func refuseExistingFile(path, what string) error {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return booking.Errorf(booking.EInternal, "%s already exists; %s never overwrites a file. Choose a new name.", booking.CleanLine(path, 200), what)
	}
	return nil
}

// writeNewFile writes text to path, 0600, synced under a temporary name
// beside it and linked into place only if path still does not exist.
func writeNewFile(path, text string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return booking.Errorf(booking.EInternal, "Cannot write %s: %v", booking.CleanLine(path, 200), err)
	}
	defer os.Remove(f.Name())
	if err := writeSynced(f, text); err != nil {
		return booking.Errorf(booking.EInternal, "Cannot write %s: %v", booking.CleanLine(path, 200), err)
	}
	if err := os.Link(f.Name(), path); errors.Is(err, fs.ErrExist) {
		return refuseExistingFile(path, "an export")
	} else if err != nil {
		return booking.Errorf(booking.EInternal, "Cannot write %s: %v", booking.CleanLine(path, 200), err)
	}
	return syncDir(filepath.Dir(path))
}
