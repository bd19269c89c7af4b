package store

import (
	"context"
	"time"

	"boxoffice/booking"
)

// The cinema's settings (booking.Settings): a key's value at a site, the
// cinema's own at booking.AllSites. An engine of one site (SQLite) keeps
// every value as the cinema's. Each key's rule is booking's
// (booking.ValidSetting); the store checks the site, writes the value and
// its audit row in one transaction, and tells every open counter (a
// change of show 0) so their money and dates follow at once.
//
// The settings are read afresh for each use: they are a handful of rows,
// and a value changed by a manager at another server is in force at the
// next read, with no cache to go stale.

// SettingsTx is what changing a setting asks of a transaction.
type SettingsTx interface {
	// SettingValue reads the value kept for key at site; "" when none.
	SettingValue(key string, site int64) (string, error)
	// PutSetting keeps value for key at site, over any value there.
	PutSetting(key string, site int64, value string) error
	// DeleteSetting removes the value of key at site; nothing when none.
	DeleteSetting(key string, site int64) error
}

// SettingsReads are the settings' reads outside a transaction.
type SettingsReads interface {
	// ReadSettings lists every value kept, at every site.
	ReadSettings(ctx context.Context) ([]booking.SettingRow, error)
}

// settingSite is where a value for site is kept: an engine of one site
// keeps every value as the cinema's.
func (s *Store) settingSite(site int64) int64 {
	if s.d.OneSite() {
		return booking.AllSites
	}
	return site
}

// Cinema returns the settings in force at site.
func (s *Store) Cinema(ctx context.Context, actor booking.Actor, site int64) (*booking.Cinema, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	if site != booking.AllSites {
		if err := s.siteExists(ctx, site); err != nil {
			return nil, err
		}
	}
	return CinemaAt(s, ctx, site)
}

// siteExists refuses a site nobody made.
func (s *Store) siteExists(ctx context.Context, site int64) error {
	list, err := s.d.ReadSites(ctx)
	if err != nil {
		return err
	}
	for _, x := range list {
		if x.ID == site {
			return nil
		}
	}
	return booking.ErrNoSite(site)
}

// CinemaAt reads the settings in force at site, for the rules and for a
// driver's own reads (a day's shows, the takings) that need the site's
// time zone. It authorizes nobody: its callers have.
func CinemaAt(s *Store, ctx context.Context, site int64) (*booking.Cinema, error) {
	rows, err := s.d.ReadSettings(ctx)
	if err != nil {
		return nil, err
	}
	return booking.ResolveCinema(rows, s.settingSite(site)), nil
}

// SetSetting sets key at site, or with an empty value removes it there.
// READ COMMITTED: one key's row at one site, written whole; of two
// managers at once the later write is the one in force, and each leaves
// its audit row.
func (s *Store) SetSetting(ctx context.Context, actor booking.Actor, site int64, key, value string) (booking.Setting, error) {
	if err := booking.Authorize(actor, booking.ActionManageSettings); err != nil {
		return booking.Setting{}, err
	}
	v, err := booking.ValidSetting(key, value)
	if err != nil {
		return booking.Setting{}, err
	}
	at := s.settingSite(site)
	_, err = write(s, ctx, actor, Write{Op: "set setting"}, func(tx Tx) (struct{}, error) {
		where := ""
		if at != booking.AllSites {
			name, err := tx.SiteName(at)
			if err != nil {
				return struct{}{}, err
			}
			where = " at " + name
		} else if site != booking.AllSites && site != booking.MainSite {
			return struct{}{}, booking.ErrNoSite(site)
		}
		old, err := tx.SettingValue(key, at)
		if err != nil {
			return struct{}{}, err
		}
		if v == "" {
			err = tx.DeleteSetting(key, at)
		} else {
			err = tx.PutSetting(key, at, v)
		}
		if err != nil {
			return struct{}{}, err
		}
		tx.Touch(0) // every open counter reads its money and dates again
		detail := key + where + ": " + shown(old) + " → " + shown(v)
		return struct{}{}, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditSettings, Detail: detail}, 0)
	})
	if err != nil {
		return booking.Setting{}, err
	}
	return committed(ctx, func(ctx context.Context) (booking.Setting, error) {
		c, err := CinemaAt(s, ctx, site)
		if err != nil {
			return booking.Setting{}, err
		}
		return c.Get(key), nil
	})
}

// shown is a value as the audit trail writes it.
func shown(v string) string {
	if v == "" {
		return "(unset)"
	}
	return booking.CleanLine(v, 80)
}

// Zoned returns r with its dates read at its site (every site: the
// cinema's own zone), when a zone is set there: the same dates, their
// midnights in that zone. Without one, r's own location stands, as it
// always did. Reports and a day's shows read their days through it.
func Zoned(s *Store, ctx context.Context, r booking.ReportRange) (booking.ReportRange, error) {
	c, err := CinemaAt(s, ctx, r.Site)
	if err != nil {
		return r, err
	}
	if c.Zoned() {
		r.From, r.To = c.InZone(r.From), c.InZone(r.To)
	}
	return r, nil
}

// DayAt is day's date at site: its midnight in the site's zone when one
// is set, else day as given.
func DayAt(s *Store, ctx context.Context, site int64, day time.Time) (time.Time, error) {
	r, err := Zoned(s, ctx, booking.ReportRange{From: day, To: day, Site: site})
	return r.From, err
}
