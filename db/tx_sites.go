package db

import (
	"context"

	"boxoffice/booking"
)

// Sites on SQLite (the store's SitesTx and SitesReads): the embedded store is
// one cinema, one site, booking.MainSite, named mainSiteName. Every hall
// and terminal is at it, every member of staff works at all of it (Site
// 0), and nothing is stored for it: a SQLite cinema reads and behaves
// exactly as before sites.

// mainSiteName names the one site; the schema keeps no name for the
// cinema itself.
const mainSiteName = "Main"

// OneSite: SQLite holds one site.
func (d driver) OneSite() bool { return true }

// ReadSites lists the one site.
func (d driver) ReadSites(context.Context) ([]booking.Site, error) {
	return []booking.Site{{ID: booking.MainSite, Name: mainSiteName}}, nil
}

// oneSite refuses any site but the one (AllSites counts as it), where a
// hall or a report names one.
func oneSite(site int64) error {
	if site != booking.AllSites && site != booking.MainSite {
		return booking.ErrNoSite(site)
	}
	return nil
}

// SiteName names the one site and refuses any other.
func (w *wtx) SiteName(site int64) (string, error) {
	if site != booking.MainSite {
		return "", booking.ErrNoSite(site)
	}
	return mainSiteName, nil
}

// InsertSite is never asked (OneSite); it refuses as AddSite does.
func (w *wtx) InsertSite(string) (int64, bool, error) { return 0, false, booking.ErrOneSite }

// MoveTerminal finds the terminal, which is at the one site already.
func (w *wtx) MoveTerminal(name string, _ int64) (booking.Terminal, bool, error) {
	t := booking.Terminal{Site: booking.MainSite}
	err := w.queryRow(`SELECT id, name, printer FROM terminals WHERE name = ?`, name).Scan(&t.ID, &t.Name, &t.Printer)
	if isNoRows(err) {
		return t, false, nil
	}
	return t, err == nil, err
}

// MoveStaff finds the member of staff, who works at all of the one site
// whatever is asked.
func (w *wtx) MoveStaff(name string, _ int64) (bool, error) { return w.StaffExists(name) }
