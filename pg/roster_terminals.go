package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// AddTerminal registers a counter device key. SERIALIZABLE (see
// serializable): the key must be unused by staff as well.
func (s *Store) AddTerminal(ctx context.Context, actor booking.Actor, name string, authorizedKey []byte) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name, err := booking.ValidStaffName(name)
	if err != nil {
		return nil, err
	}
	fp, line, err := parseAuthorizedKey(authorizedKey)
	if err != nil {
		return nil, err
	}
	return inTx(s, ctx, "add terminal", serializable, func(t *tx) (*booking.Terminal, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if err := keyUnused(t, &fp); err != nil {
			return nil, err
		}
		term := &booking.Terminal{Name: name, Site: booking.MainSite}
		err := t.QueryRow(t.ctx, `INSERT INTO terminals (name, key_fp, key_text, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
			name, fp, line, t.nowMS()).Scan(&term.ID)
		switch {
		case isUnique(err, "terminals_name"):
			return nil, booking.Errorf(booking.EConflict, "There is already a terminal called %s.", name)
		case isUnique(err, "terminals_key_fp_key"):
			return nil, booking.Errorf(booking.EConflict, "That key is already registered.")
		case err != nil:
			return nil, err
		}
		return term, audit(t, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: name + ": add terminal"}, 0)
	})
}

// ListTerminals lists registered terminals by name.
func (s *Store) ListTerminals(ctx context.Context, actor booking.Actor) ([]booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, name, printer, site_id FROM terminals ORDER BY lower(name), name`)
	if err != nil {
		return nil, s.translate("list terminals", err)
	}
	var out []booking.Terminal
	var term booking.Terminal
	_, err = pgx.ForEachRow(rows, []any{&term.ID, &term.Name, &term.Printer, &term.Site}, func() error {
		out = append(out, term)
		return nil
	})
	return out, s.translate("list terminals", err)
}

// RemoveTerminal deletes a terminal key; its sessions are refused from
// their next write on (checkActor). READ COMMITTED: one DELETE by key.
func (s *Store) RemoveTerminal(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	_, err := inTx(s, ctx, "remove terminal", readCommitted, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		tag, err := t.Exec(t.ctx, `DELETE FROM terminals WHERE lower(name) = lower($1)`, name)
		if err != nil {
			return struct{}{}, err
		}
		if tag.RowsAffected() != 1 {
			return struct{}{}, booking.Errorf(booking.ENotFound, "No terminal called %s.", name)
		}
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: name + ": remove terminal"}, 0)
	})
	return err
}

// SetTerminalPrinter sets where a registered terminal prints, "" for
// none. The URL is read (booking.ParsePrinter) before the transaction and
// stored in its canonical form, so every reader sees one spelling. READ
// COMMITTED: one UPDATE by key.
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
	return inTx(s, ctx, "set terminal printer", readCommitted, func(t *tx) (*booking.Terminal, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		term := &booking.Terminal{Printer: url}
		err := t.QueryRow(t.ctx, `UPDATE terminals SET printer = $1 WHERE lower(name) = lower($2) RETURNING id, name, site_id`, url, name).Scan(&term.ID, &term.Name, &term.Site)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, booking.Errorf(booking.ENotFound, "No terminal called %s.", name)
		}
		if err != nil {
			return nil, err
		}
		detail := term.Name + ": printer " + url
		if url == "" {
			detail = term.Name + ": no printer"
		}
		return term, audit(t, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: detail}, 0)
	})
}

// IdentifyKey finds who a wire-format SSH public key belongs to: an
// enabled staff member or a terminal.
func (s *Store) IdentifyKey(ctx context.Context, wireKey []byte) (*booking.Staff, *booking.Terminal, error) {
	fp := keyFingerprint(wireKey)
	var st booking.Staff
	var role string
	var site *int64
	err := s.pool.QueryRow(ctx, `SELECT id, name, role, disabled, site_id FROM staff WHERE key_fp = $1`, fp).Scan(&st.ID, &st.Name, &role, &st.Disabled, &site)
	switch {
	case err == nil && st.Disabled:
		return nil, nil, booking.Errorf(booking.EForbidden, "That staff member is disabled.")
	case err == nil:
		st.Role, _ = booking.ParseRole(role)
		st.HasKey = true
		if site != nil {
			st.Site = *site
		}
		return &st, nil, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, nil, s.translate("identify key", err)
	}
	var term booking.Terminal
	err = s.pool.QueryRow(ctx, `SELECT id, name, printer, site_id FROM terminals WHERE key_fp = $1`, fp).Scan(&term.ID, &term.Name, &term.Printer, &term.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, booking.Errorf(booking.ENotFound, "Unknown key %s.", fp)
	}
	if err != nil {
		return nil, nil, s.translate("identify key", err)
	}
	return nil, &term, nil
}
