package db

import (
	"context"

	"boxoffice/booking"
)

// Sites on SQLite (booking.Sites): the embedded store is one cinema, one
// site, booking.MainSite, named mainSiteName. Every hall and terminal is
// at it, every member of staff works at all of it (Site 0), and nothing
// is stored for it: a SQLite cinema reads and behaves exactly as before.

// mainSiteName names the one site; the schema keeps no name for the
// cinema itself.
const mainSiteName = "Main"

// Sites lists the one site.
func (s *Store) Sites(ctx context.Context, actor booking.Actor) ([]booking.Site, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	return []booking.Site{{ID: booking.MainSite, Name: mainSiteName}}, nil
}

// AddSite refuses: a chain runs on PostgreSQL.
func (s *Store) AddSite(ctx context.Context, actor booking.Actor, name string) (booking.Site, error) {
	if err := booking.Authorize(actor, booking.ActionManageSites); err != nil {
		return booking.Site{}, err
	}
	return booking.Site{}, booking.ErrOneSite
}

// oneSite refuses any site but the one (AllSites counts as it).
func oneSite(site int64) error {
	if site != booking.AllSites && site != booking.MainSite {
		return booking.ErrNoSite(site)
	}
	return nil
}

// SetTerminalSite finds the terminal, which is at the one site already:
// nothing is written.
func (s *Store) SetTerminalSite(ctx context.Context, actor booking.Actor, name string, site int64) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	if err := oneSite(site); err != nil {
		return nil, err
	}
	name = booking.CleanLine(name, 40)
	t := &booking.Terminal{Site: booking.MainSite}
	err := s.readRow(ctx, `SELECT id, name, printer FROM terminals WHERE name = ?`, name).Scan(&t.ID, &t.Name, &t.Printer)
	if isNoRows(err) {
		return nil, booking.Errorf(booking.ENotFound, "No terminal called %s.", name)
	}
	if err != nil {
		return nil, s.translate("set terminal site", err)
	}
	return t, nil
}

// SetStaffSite finds the member of staff, who works at the one site
// whatever is asked: nothing is written.
func (s *Store) SetStaffSite(ctx context.Context, actor booking.Actor, name string, site int64) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	if err := oneSite(site); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	var id int64
	err := s.readRow(ctx, `SELECT id FROM staff WHERE name = ?`, name).Scan(&id)
	if isNoRows(err) {
		return booking.Errorf(booking.ENotFound, "No staff called %s.", name)
	}
	return s.translate("set staff site", err)
}
