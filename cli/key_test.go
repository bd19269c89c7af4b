package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"boxoffice/booking"
)

func TestSealKeys(t *testing.T) {
	keys := []booking.TicketKey{{ID: 2, Secret: bytes.Repeat([]byte{7}, 32)}, {ID: 1, Secret: bytes.Repeat([]byte{9}, 32)}}
	pass := []byte("seven cinemas by the sea")
	text, err := sealKeys(keys, pass)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(strings.ToLower(text), formatTicketKeys([]booking.TicketKey{k})[2:66]) {
			t.Fatalf("key %d is in the clear:\n%s", k.ID, text)
		}
	}
	t.Run("OK", func(t *testing.T) {
		box, err := parseSealed(text, "keys")
		if err != nil {
			t.Fatal(err)
		}
		got, err := box.open(pass, "keys")
		if err != nil || len(got) != 2 || !sameKey(got[0], keys[0]) || !sameKey(got[1], keys[1]) {
			t.Fatalf("opened %v %v", got, err)
		}
		if !box.heldBy(keys[:]) || box.heldBy(keys[:1]) || box.heldBy(nil) {
			t.Fatal("heldBy")
		}
	})
	t.Run("ErrPassphrase", func(t *testing.T) {
		box, _ := parseSealed(text, "keys")
		if _, err := box.open([]byte("seven cinemas by the Sea"), "keys"); booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), "does not open") {
			t.Fatalf("a wrong passphrase: %v", err)
		}
	})
	t.Run("ErrTampered", func(t *testing.T) {
		// The fingerprints in the clear are bound to the sealed keys: one
		// swapped to make a restore skip the keys does not open.
		var s sealedKeys
		json.Unmarshal([]byte(text), &s)
		s.Keys[0] = "2:0000000000000000"
		raw, _ := json.Marshal(s)
		box, err := parseSealed(string(raw), "keys")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := box.open(pass, "keys"); err == nil {
			t.Fatal("tampered fingerprints opened")
		}
	})
	t.Run("ErrForm", func(t *testing.T) {
		var s sealedKeys
		json.Unmarshal([]byte(text), &s)
		other := s
		other.Version = 2
		v2, _ := json.Marshal(other)
		other = s
		other.Nonce = other.Nonce[:8]
		short, _ := json.Marshal(other)
		for _, bad := range []string{"", "{}", "not json", string(v2), string(short), strings.Repeat(" ", maxSealedFile+1)} {
			if _, err := parseSealed(bad, "keys"); booking.ErrorCode(err) != booking.EInvalid {
				t.Errorf("%.40q: %v", bad, err)
			}
		}
	})
}

func TestMergeKeys(t *testing.T) {
	a := booking.TicketKey{ID: 1, Secret: bytes.Repeat([]byte{1}, 32)}
	b := booking.TicketKey{ID: 1, Secret: bytes.Repeat([]byte{2}, 32)} // another machine's key 1
	c := booking.TicketKey{ID: 2, Secret: bytes.Repeat([]byte{3}, 32)}
	got := mergeKeys([]booking.TicketKey{a, c}, []booking.TicketKey{b, a})
	if len(got) != 3 || !sameKey(got[0], a) || !sameKey(got[1], c) || !sameKey(got[2], b) {
		t.Fatalf("merged %v", got)
	}
	// Both keys with id 1 verify the codes they signed.
	for _, k := range []booking.TicketKey{a, b} {
		if id, err := booking.VerifyTicket(got, booking.SignTicket(k, 42)); err != nil || id != 42 {
			t.Fatalf("a code of %s: %d %v", fingerprint(k), id, err)
		}
	}
}

func TestEnv_Passphrase(t *testing.T) {
	c := &env{stdin: strings.NewReader("typed\n"), stderr: &bytes.Buffer{}}
	t.Setenv(passphraseEnv, "")
	file := filepath.Join(t.TempDir(), "pass")
	os.WriteFile(file, []byte("from the file, first line\r\nsecond line\n"), 0o600)
	if got, err := c.passphrase(file, true); err != nil || string(got) != "from the file, first line" {
		t.Fatalf("from a file: %q %v", got, err)
	}
	// Never from a pipe: a passphrase comes from a terminal, a file or the
	// environment.
	var usage *UsageError
	if _, err := c.passphrase("", false); !errors.As(err, &usage) || !strings.Contains(usage.Message, "--passphrase-file") {
		t.Fatalf("from stdin that is not a terminal: %v", err)
	}
	t.Setenv(passphraseEnv, "short")
	if got, err := c.passphrase("", false); err != nil || string(got) != "short" {
		t.Fatalf("from the environment, to open: %q %v", got, err)
	}
	if _, err := c.passphrase("", true); !errors.As(err, &usage) || !strings.Contains(usage.Message, "at least") {
		t.Fatalf("a short passphrase to seal with: %v", err)
	}
	os.WriteFile(file, slices.Repeat([]byte("x"), maxPassphrase+10), 0o600)
	if _, err := c.passphrase(file, false); err == nil {
		t.Fatal("an endless passphrase file was read")
	}
}
