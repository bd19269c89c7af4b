package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Sites on PostgreSQL (booking.Sites): a chain's cinemas, in the sites
// table (0006_sites.sql). A hall's site is set when it is made and never
// changes, so it is cached with the hall; a terminal's and a member of
// staff's are read where they are needed (sign-in, the SSH server).

var _ booking.Sites = (*Store)(nil)

// Sites lists the sites by id.
func (s *Store) Sites(ctx context.Context, actor booking.Actor) ([]booking.Site, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, name FROM sites ORDER BY id`)
	if err != nil {
		return nil, s.translate("sites", err)
	}
	var out []booking.Site
	var site booking.Site
	_, err = pgx.ForEachRow(rows, []any{&site.ID, &site.Name}, func() error {
		out = append(out, site)
		return nil
	})
	return out, s.translate("sites", err)
}

// AddSite adds a site. READ COMMITTED: one INSERT, whose unique index on
// lower(name) refuses a name in use however many managers add it at once.
func (s *Store) AddSite(ctx context.Context, actor booking.Actor, name string) (booking.Site, error) {
	if err := booking.Authorize(actor, booking.ActionManageSites); err != nil {
		return booking.Site{}, err
	}
	name, err := booking.ValidSiteName(name)
	if err != nil {
		return booking.Site{}, err
	}
	return inTx(s, ctx, "add site", readCommitted, func(t *tx) (booking.Site, error) {
		if err := checkActor(t, actor); err != nil {
			return booking.Site{}, err
		}
		site := booking.Site{Name: name}
		err := t.QueryRow(t.ctx, `INSERT INTO sites (name) VALUES ($1) RETURNING id`, name).Scan(&site.ID)
		switch {
		case isUnique(err, "sites_name"):
			return booking.Site{}, booking.Errorf(booking.EConflict, "There is already a site called %s.", name)
		case err != nil:
			return booking.Site{}, err
		}
		return site, audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add site " + name}, 0)
	})
}

// siteName names site id in t, or refuses an id nobody made.
func siteName(t *tx, id int64) (string, error) {
	var name string
	err := t.QueryRow(t.ctx, `SELECT name FROM sites WHERE id = $1`, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", booking.ErrNoSite(id)
	}
	return name, err
}

// SetTerminalSite moves a registered terminal to a site. READ COMMITTED:
// one UPDATE by key, the site's foreign key holding it to a site that
// exists.
func (s *Store) SetTerminalSite(ctx context.Context, actor booking.Actor, name string, site int64) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name = booking.CleanLine(name, 40)
	return inTx(s, ctx, "set terminal site", readCommitted, func(t *tx) (*booking.Terminal, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		where, err := siteName(t, site)
		if err != nil {
			return nil, err
		}
		term := &booking.Terminal{Site: site}
		err = t.QueryRow(t.ctx, `UPDATE terminals SET site_id = $1 WHERE lower(name) = lower($2) RETURNING id, name, printer`, site, name).Scan(&term.ID, &term.Name, &term.Printer)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, booking.Errorf(booking.ENotFound, "No terminal called %s.", name)
		}
		if err != nil {
			return nil, err
		}
		return term, audit(t, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: term.Name + ": site " + where}, 0)
	})
}

// SetStaffSite sets where a member of staff works (AllSites: NULL, every
// site). READ COMMITTED: one UPDATE by key.
func (s *Store) SetStaffSite(ctx context.Context, actor booking.Actor, name string, site int64) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	_, err := inTx(s, ctx, "set staff site", readCommitted, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		where := "every site"
		if site != booking.AllSites {
			n, err := siteName(t, site)
			if err != nil {
				return struct{}{}, err
			}
			where = "site " + n
		}
		tag, err := t.Exec(t.ctx, `UPDATE staff SET site_id = $1 WHERE lower(name) = lower($2)`, nullID(site), name)
		if err != nil {
			return struct{}{}, err
		}
		if tag.RowsAffected() != 1 {
			return struct{}{}, booking.Errorf(booking.ENotFound, "No staff called %s.", name)
		}
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": works at " + where}, 0)
	})
	return err
}

// siteServes refuses a session at one site acting on a show of a hall at
// another (booking.SiteServes): what a counter may hold (HoldBest; Hold
// is to call it too, after its hallOfShow).
func (s *Store) siteServes(ctx context.Context, actor booking.Actor, showID int64) error {
	if actor.Site == booking.AllSites {
		return nil
	}
	hall, err := s.hallOfShow(ctx, showID)
	if err != nil {
		return err
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return booking.ErrOtherSite(showID)
	}
	return nil
}
