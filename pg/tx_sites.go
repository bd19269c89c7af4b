package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Sites on PostgreSQL (the store's SitesTx and SitesReads): a chain's
// cinemas, in the sites table (0006_sites.sql). A hall's site is set when
// it is made and never changes, so it is cached with the hall; a
// terminal's and a member of staff's are read where they are needed
// (sign-in, the SSH server).

var _ booking.Sites = (*Store)(nil)

// OneSite: PostgreSQL holds a chain.
func (d driver) OneSite() bool { return false }

// ReadSites lists the sites by id.
func (d driver) ReadSites(ctx context.Context) ([]booking.Site, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id, name FROM sites ORDER BY id`)
	if err != nil {
		return nil, d.s.translate("sites", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Site, error) {
		var site booking.Site
		err := r.Scan(&site.ID, &site.Name)
		return site, err
	})
	return out, d.s.translate("sites", err)
}

// InsertSite adds a site; the unique index on lower(name) refuses a name
// in use however many managers add it at once.
func (t *tx) InsertSite(name string) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO sites (name) VALUES ($1) RETURNING id`, name).Scan(&id)
	if isUnique(err, "sites_name") {
		return 0, true, nil
	}
	return id, false, err
}

// SiteName reads a site's name.
func (t *tx) SiteName(site int64) (string, error) { return siteName(t, site) }

// siteName names site id in t, or refuses an id nobody made.
func siteName(t *tx, id int64) (string, error) {
	var name string
	err := t.QueryRow(t.ctx, `SELECT name FROM sites WHERE id = $1`, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", booking.ErrNoSite(id)
	}
	return name, err
}

// MoveTerminal puts a terminal at a site: one UPDATE by key, the site's
// foreign key holding it to a site that exists.
func (t *tx) MoveTerminal(name string, site int64) (booking.Terminal, bool, error) {
	term := booking.Terminal{Site: site}
	err := t.QueryRow(t.ctx, `UPDATE terminals SET site_id = $1 WHERE lower(name) = lower($2) RETURNING id, name, printer`, site, name).
		Scan(&term.ID, &term.Name, &term.Printer)
	if errors.Is(err, pgx.ErrNoRows) {
		return term, false, nil
	}
	return term, err == nil, err
}

// MoveStaff sets where a member of staff works (AllSites: NULL).
func (t *tx) MoveStaff(name string, site int64) (bool, error) {
	return t.changedOne(`UPDATE staff SET site_id = $1 WHERE lower(name) = lower($2)`, nullID(site), name)
}
