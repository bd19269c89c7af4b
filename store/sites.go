package store

import (
	"context"

	"boxoffice/booking"
)

// Sites (booking.Sites): a chain's cinemas. An engine says what it can
// hold (SitesReads.OneSite): SQLite holds one site, booking.MainSite, and
// refuses a second; PostgreSQL holds a chain. The rules are the same on
// both: a site named must exist (SignInTx.SiteName answers only for the
// sites there are), and a change is recorded only where it was stored.

// SitesTx is what placing terminals and staff at sites asks of a
// transaction.
type SitesTx interface {
	// InsertSite adds a site; taken is true, and nothing written, when
	// its name is in use (compared without case).
	InsertSite(name string) (id int64, taken bool, err error)
	// MoveTerminal puts the terminal called name at site (one that
	// exists) and reads it back; found is false when no terminal has the
	// name. An engine of one site stores nothing: every terminal is at
	// it.
	MoveTerminal(name string, site int64) (t booking.Terminal, found bool, err error)
	// MoveStaff sets the site the member of staff called name works at
	// (booking.AllSites: every one); found is false when nobody has the
	// name. An engine of one site stores nothing: everyone works at all
	// of it.
	MoveStaff(name string, site int64) (found bool, err error)
}

// SitesReads are the sites' reads outside a transaction.
type SitesReads interface {
	// ReadSites lists the sites by id.
	ReadSites(ctx context.Context) ([]booking.Site, error)
	// OneSite reports that the engine holds one site, booking.MainSite,
	// and no other: every hall and terminal is at it and every member of
	// staff works at all of it.
	OneSite() bool
}

// Sites lists the sites by id; a single cinema has one.
func (s *Store) Sites(ctx context.Context, actor booking.Actor) ([]booking.Site, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	return s.d.ReadSites(ctx)
}

// AddSite adds a site to a chain; an engine of one site refuses, saying
// where a chain runs (booking.ErrOneSite), whatever the name. READ
// COMMITTED: one insert, whose unique name refuses a name in use however
// many managers add it at once.
func (s *Store) AddSite(ctx context.Context, actor booking.Actor, name string) (booking.Site, error) {
	if err := booking.Authorize(actor, booking.ActionManageSites); err != nil {
		return booking.Site{}, err
	}
	if s.d.OneSite() {
		return booking.Site{}, booking.ErrOneSite
	}
	name, err := booking.ValidSiteName(name)
	if err != nil {
		return booking.Site{}, err
	}
	return write(s, ctx, actor, Write{Op: "add site"}, func(tx Tx) (booking.Site, error) {
		id, taken, err := tx.InsertSite(name)
		if err != nil {
			return booking.Site{}, err
		}
		if taken {
			return booking.Site{}, booking.Errorf(booking.EConflict, "There is already a site called %s.", name)
		}
		site := booking.Site{ID: id, Name: name}
		return site, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add site " + name}, 0)
	})
}

// SetTerminalSite moves a registered terminal to a site; its sessions
// opened from then on work there. On an engine of one site the terminal
// is there already: it is found, and nothing is stored or recorded.
func (s *Store) SetTerminalSite(ctx context.Context, actor booking.Actor, name string, site int64) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name = booking.CleanLine(name, 40)
	return write(s, ctx, actor, Write{Op: "set terminal site"}, func(tx Tx) (*booking.Terminal, error) {
		where, err := tx.SiteName(site)
		if err != nil {
			return nil, err
		}
		t, found, err := tx.MoveTerminal(name, site)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errNoTerminal(name)
		}
		if s.d.OneSite() {
			return &t, nil
		}
		return &t, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: t.Name + ": site " + where}, 0)
	})
}

// SetStaffSite sets the site a member of staff works at (AllSites: every
// one). On an engine of one site everyone works at all of it: the member
// of staff is found, and nothing is stored or recorded.
func (s *Store) SetStaffSite(ctx context.Context, actor booking.Actor, name string, site int64) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	return apply(s, ctx, actor, Write{Op: "set staff site"}, func(tx Tx) error {
		where := "every site"
		if site != booking.AllSites {
			n, err := tx.SiteName(site)
			if err != nil {
				return err
			}
			where = "site " + n
		}
		found, err := tx.MoveStaff(name, site)
		if err != nil {
			return err
		}
		if !found {
			return errNoStaff(name)
		}
		if s.d.OneSite() {
			return nil
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": works at " + where}, 0)
	})
}
