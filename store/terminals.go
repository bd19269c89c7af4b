package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"golang.org/x/crypto/ssh"

	"boxoffice/booking"
)

// The registered terminals of the roster: a counter device's SSH key,
// where it prints. One key names exactly one identity, a member of staff
// or a terminal.

// errKeyRegistered refuses a key bound already, to staff or a terminal.
var errKeyRegistered = booking.Errorf(booking.EConflict, "That key is already registered.")

// sshKey is a public key read from an authorized_keys line: its
// fingerprint and the line in its canonical form; zero for none.
type sshKey struct{ fp, line string }

// keyFingerprint is the SHA256 fingerprint of a wire-format public key,
// as ssh-keygen -l prints it: what the drivers store and look keys up by.
func keyFingerprint(wireKey []byte) string {
	sum := sha256.Sum256(wireKey)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// parseAuthorizedKey reads one public key in authorized_keys format.
func parseAuthorizedKey(text []byte) (sshKey, error) {
	key, _, _, _, err := ssh.ParseAuthorizedKey(text)
	if err != nil {
		return sshKey{}, booking.Errorf(booking.EInvalid, "Not an SSH public key (authorized_keys format, like id_ed25519.pub).")
	}
	return sshKey{fp: keyFingerprint(key.Marshal()), line: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))}, nil
}

// keyUnused refuses a key (by fingerprint; "" for none) already bound to
// staff or a terminal.
func keyUnused(tx Tx, fp string) error {
	if fp == "" {
		return nil
	}
	used, err := tx.KeyInUse(fp)
	if err != nil {
		return err
	}
	if used {
		return errKeyRegistered
	}
	return nil
}

// AddTerminal registers a counter device key, at the main site.
// Serializable, as AddStaff: the key must be unused by staff as well.
func (s *Store) AddTerminal(ctx context.Context, actor booking.Actor, name string, authorizedKey []byte) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name, err := booking.ValidStaffName(name)
	if err != nil {
		return nil, err
	}
	key, err := parseAuthorizedKey(authorizedKey)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "add terminal", Isolation: Serializable}, func(tx Tx) (*booking.Terminal, error) {
		if err := keyUnused(tx, key.fp); err != nil {
			return nil, err
		}
		id, taken, err := tx.InsertTerminal(NewTerminal{Name: name, KeyFP: key.fp, KeyText: key.line})
		if err != nil {
			return nil, err
		}
		if err := refusedAsTaken(taken, "There is already a terminal called %s.", name); err != nil {
			return nil, err
		}
		t := &booking.Terminal{ID: id, Name: name, Site: booking.MainSite}
		return t, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: name + ": add terminal"}, 0)
	})
}

// ListTerminals lists the registered terminals by name.
func (s *Store) ListTerminals(ctx context.Context, actor booking.Actor) ([]booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	return s.d.ReadTerminals(ctx)
}

// RemoveTerminal deletes a terminal key; its sessions are refused from
// their next write on (CheckActor).
func (s *Store) RemoveTerminal(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	return apply(s, ctx, actor, Write{Op: "remove terminal"}, func(tx Tx) error {
		found, err := tx.DeleteTerminal(name)
		if err != nil {
			return err
		}
		if !found {
			return errNoTerminal(name)
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: name + ": remove terminal"}, 0)
	})
}

// errNoTerminal refuses a terminal name nobody registered.
func errNoTerminal(name string) error {
	return booking.Errorf(booking.ENotFound, "No terminal called %s.", name)
}

// SetTerminalPrinter sets where a registered terminal prints, "" for
// none. The URL is read (booking.ParsePrinter) before the transaction and
// stored in its canonical form, so every reader sees one spelling.
func (s *Store) SetTerminalPrinter(ctx context.Context, actor booking.Actor, name, printer string) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	p, err := booking.ParsePrinter(printer)
	if err != nil {
		return nil, err
	}
	name = booking.CleanLine(name, 40)
	url := p.String()
	return write(s, ctx, actor, Write{Op: "set terminal printer"}, func(tx Tx) (*booking.Terminal, error) {
		t, found, err := tx.UpdateTerminalPrinter(name, url)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errNoTerminal(name)
		}
		detail := t.Name + ": printer " + url
		if url == "" {
			detail = t.Name + ": no printer"
		}
		return &t, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: detail}, 0)
	})
}
